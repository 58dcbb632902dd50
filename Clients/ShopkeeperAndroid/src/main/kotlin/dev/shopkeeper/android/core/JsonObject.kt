package dev.shopkeeper.android.core

import java.time.Instant
import java.time.OffsetDateTime
import java.time.format.DateTimeFormatter
import java.time.format.DateTimeParseException
import java.time.temporal.ChronoUnit

/**
 * A JSON object of an answer, read field by field with the model's types; a missing or mistyped required field
 * throws [ShopkeeperException.Decoding] naming its JSON pointer. Fields the models do not know are ignored, so a
 * field the server adds later never fails an answer.
 */
class JsonObject(val fields: Map<String, Any?>, val pointer: String = "") {
    private fun at(key: String) = "$pointer/$key"

    private fun fail(key: String, what: String): Nothing = throw ShopkeeperException.Decoding("${at(key)}: $what")

    /** Whether the member is present and not `null`. */
    fun has(key: String): Boolean = fields[key] != null

    fun string(key: String): String = stringOrNull(key) ?: fail(key, "a string is required")

    fun stringOrNull(key: String): String? = when (val value = fields[key]) {
        null -> null
        is String -> value
        else -> fail(key, "not a string")
    }

    fun long(key: String): Long = longOrNull(key) ?: fail(key, "an integer is required")

    fun longOrNull(key: String): Long? = when (val value = fields[key]) {
        null -> null
        is Long -> value
        is Int -> value.toLong()
        is Double -> if (value == Math.rint(value) && Math.abs(value) < 9.0e15) value.toLong() else fail(key, "not an integer")
        else -> fail(key, "not an integer")
    }

    fun int(key: String): Int = intOrNull(key) ?: fail(key, "an integer is required")

    fun intOrNull(key: String): Int? = longOrNull(key)?.let {
        if (it < Int.MIN_VALUE || it > Int.MAX_VALUE) fail(key, "out of range") else it.toInt()
    }

    fun boolean(key: String): Boolean = booleanOrNull(key) ?: fail(key, "a boolean is required")

    fun booleanOrNull(key: String): Boolean? = when (val value = fields[key]) {
        null -> null
        is Boolean -> value
        else -> fail(key, "not a boolean")
    }

    fun instant(key: String): Instant = instantOrNull(key) ?: fail(key, "a date is required")

    fun instantOrNull(key: String): Instant? {
        val text = stringOrNull(key) ?: return null
        return Dates.parse(text) ?: fail(key, "not an RFC 3339 date: $text")
    }

    fun obj(key: String): JsonObject = objOrNull(key) ?: fail(key, "an object is required")

    fun objOrNull(key: String): JsonObject? = when (val value = fields[key]) {
        null -> null
        is Map<*, *> -> JsonObject(stringKeyed(value), at(key))
        else -> fail(key, "not an object")
    }

    /** A required array of objects, each read by [item]. */
    fun <T> list(key: String, item: (JsonObject) -> T): List<T> = listOrNull(key, item) ?: fail(key, "an array is required")

    fun <T> listOrNull(key: String, item: (JsonObject) -> T): List<T>? {
        val values = arrayOrNull(key) ?: return null
        return values.mapIndexed { index, value ->
            if (value !is Map<*, *>) fail("$key/$index", "not an object")
            item(JsonObject(stringKeyed(value), "${at(key)}/$index"))
        }
    }

    fun strings(key: String): List<String> = stringsOrNull(key) ?: fail(key, "an array is required")

    fun stringsOrNull(key: String): List<String>? = arrayOrNull(key)?.mapIndexed { index, value ->
        value as? String ?: fail("$key/$index", "not a string")
    }

    /** A required object whose members are objects, each read by [value]. */
    fun <T> objectMap(key: String, value: (JsonObject) -> T): Map<String, T> {
        val members = obj(key)
        val result = LinkedHashMap<String, T>()
        for (name in members.fields.keys) result[name] = value(members.obj(name))
        return result
    }

    /** A required object whose members are strings. */
    fun stringMap(key: String): Map<String, String> {
        val members = obj(key)
        val result = LinkedHashMap<String, String>()
        for (name in members.fields.keys) result[name] = members.string(name)
        return result
    }

    /** A required object whose members are integers. */
    fun intMap(key: String): Map<String, Int> {
        val members = obj(key)
        val result = LinkedHashMap<String, Int>()
        for (name in members.fields.keys) result[name] = members.int(name)
        return result
    }

    private fun arrayOrNull(key: String): List<Any?>? = when (val value = fields[key]) {
        null -> null
        is List<*> -> value
        else -> fail(key, "not an array")
    }

    companion object {
        /** The answer's body as an object. */
        fun parse(text: String): JsonObject = of(Json.parse(text), "")

        /** A parsed value that must be an object. */
        fun of(value: Any?, pointer: String = ""): JsonObject {
            if (value !is Map<*, *>) throw ShopkeeperException.Decoding("${pointer.ifEmpty { "/" }}: not an object")
            return JsonObject(stringKeyed(value), pointer)
        }

        private fun stringKeyed(value: Map<*, *>): Map<String, Any?> {
            val result = LinkedHashMap<String, Any?>()
            for ((key, item) in value) result[key.toString()] = item
            return result
        }
    }
}

/** An object to write, members in order; `null` values are left out (as the models' optional fields are). */
fun jsonOf(vararg members: Pair<String, Any?>): Map<String, Any?> {
    val result = LinkedHashMap<String, Any?>()
    for ((key, value) in members) {
        if (value != null) result[key] = if (value is Instant) Dates.format(value) else value
    }
    return result
}

/** RFC 3339 dates as the server writes them: UTC, whole seconds (fractional seconds and offsets are read too). */
object Dates {
    fun parse(text: String): Instant? = try {
        OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant()
    } catch (error: DateTimeParseException) {
        null
    }

    fun format(instant: Instant): String = DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS))
}
