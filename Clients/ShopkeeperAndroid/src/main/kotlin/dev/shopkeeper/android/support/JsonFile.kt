package dev.shopkeeper.android.support

import dev.shopkeeper.android.core.Json
import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.ShopkeeperException
import java.io.File
import java.io.FileOutputStream
import java.io.IOException
import java.nio.file.AtomicMoveNotSupportedException
import java.nio.file.Files
import java.nio.file.StandardCopyOption

/**
 * A small JSON document on disk, written atomically (a temporary file synced and renamed over the old one), so that
 * a crash mid-write leaves the previous version, never half of one.
 */
class JsonFile(val file: File) {
    /** The document, or `null` when there is none yet. */
    fun read(): JsonObject? {
        if (!file.exists()) return null
        return try {
            JsonObject.parse(file.readText(Charsets.UTF_8))
        } catch (error: IOException) {
            throw ShopkeeperException.Storage("${file.name} is unreadable: $error", error)
        } catch (error: ShopkeeperException.Decoding) {
            throw ShopkeeperException.Storage("${file.name} is unreadable: ${error.message}", error)
        }
    }

    /** Replaces the document. */
    fun write(value: Map<String, Any?>) {
        try {
            val directory = file.absoluteFile.parentFile
            if (!directory.isDirectory && !directory.mkdirs() && !directory.isDirectory) {
                throw IOException("cannot make $directory")
            }
            val temporary = File(directory, ".${file.name}.tmp")
            FileOutputStream(temporary).use { out ->
                out.write(Json.write(value).toByteArray(Charsets.UTF_8))
                out.fd.sync()
            }
            try {
                Files.move(temporary.toPath(), file.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING)
            } catch (error: AtomicMoveNotSupportedException) {
                Files.move(temporary.toPath(), file.toPath(), StandardCopyOption.REPLACE_EXISTING)
            }
        } catch (error: IOException) {
            throw ShopkeeperException.Storage("cannot write ${file.name}: $error", error)
        }
    }
}
