package dev.shopkeeper.android.purchases

import dev.shopkeeper.android.support.JsonFile

/**
 * The client's [LocalState], changed one step at a time under a lock and written to `state.json` before the change
 * counts: when the write fails the state stays as it was (and the failure is thrown), so what is in memory is never
 * ahead of what a restart would find.
 */
internal class StateBox(private val file: JsonFile, initial: LocalState) {
    private var state = initial

    /** The state now. */
    fun get(): LocalState = synchronized(this) { state }

    /** Applies [change], writes the result when it differs, and answers it. */
    fun update(change: (LocalState) -> LocalState): LocalState = synchronized(this) {
        val next = change(state)
        if (next != state) {
            file.write(next.toJson())
            state = next
        }
        next
    }
}
