package dev.shopkeeper.android.core

/**
 * The server's JSON, read into plain values and written back: objects are `Map<String, Any?>` (in document order),
 * arrays `List<Any?>`, strings `String`, numbers `Long` when integral and within range else `Double`, booleans
 * `Boolean`, and `null`. Small on purpose: no reflection, no dependency (org.json is Android's, not the JVM's).
 */
object Json {
    /** Parses one JSON document; throws [ShopkeeperException.Decoding] on anything else. */
    fun parse(text: String): Any? {
        val parser = Parser(text)
        parser.skipSpace()
        val value = parser.value(0)
        parser.skipSpace()
        if (!parser.atEnd()) throw parser.fail("trailing characters")
        return value
    }

    /** Writes a value of the shapes [parse] answers (any `Number`, `Map` with string keys); compact, UTF-16 as is. */
    fun write(value: Any?): String {
        val out = StringBuilder()
        write(value, out)
        return out.toString()
    }

    private fun write(value: Any?, out: StringBuilder) {
        when (value) {
            null -> out.append("null")
            is String -> quote(value, out)
            is Boolean -> out.append(if (value) "true" else "false")
            is Int, is Long, is Short, is Byte -> out.append(value.toString())
            is Double -> writeDouble(value, out)
            is Float -> writeDouble(value.toDouble(), out)
            is Number -> out.append(value.toString())
            is Map<*, *> -> {
                out.append('{')
                var first = true
                for ((key, item) in value) {
                    if (key !is String) throw IllegalArgumentException("JSON object keys are strings, not $key")
                    if (!first) out.append(',')
                    first = false
                    quote(key, out)
                    out.append(':')
                    write(item, out)
                }
                out.append('}')
            }
            is Iterable<*> -> {
                out.append('[')
                var first = true
                for (item in value) {
                    if (!first) out.append(',')
                    first = false
                    write(item, out)
                }
                out.append(']')
            }
            else -> throw IllegalArgumentException("not a JSON value: ${value.javaClass.name}")
        }
    }

    private fun writeDouble(value: Double, out: StringBuilder) {
        if (value.isNaN() || value.isInfinite()) throw IllegalArgumentException("JSON has no $value")
        if (value == Math.rint(value) && Math.abs(value) < 1e15) out.append(value.toLong().toString())
        else out.append(value.toString())
    }

    private fun quote(text: String, out: StringBuilder) {
        out.append('"')
        for (c in text) {
            when (c) {
                '"' -> out.append("\\\"")
                '\\' -> out.append("\\\\")
                '\n' -> out.append("\\n")
                '\r' -> out.append("\\r")
                '\t' -> out.append("\\t")
                '\b' -> out.append("\\b")
                '\u000C' -> out.append("\\f")
                else ->
                    if (c < ' ' || c == '\u2028' || c == '\u2029') out.append(String.format("\\u%04x", c - '\u0000'))
                    else out.append(c)
            }
        }
        out.append('"')
    }

    /** Nesting deeper than this is refused (a hostile answer must not overflow the stack). */
    const val MAX_DEPTH = 512

    private class Parser(val text: String) {
        var at = 0

        fun atEnd() = at >= text.length

        fun fail(what: String) = ShopkeeperException.Decoding("JSON: $what at offset $at")

        fun skipSpace() {
            while (at < text.length && (text[at] == ' ' || text[at] == '\n' || text[at] == '\r' || text[at] == '\t')) at++
        }

        fun value(depth: Int): Any? {
            if (depth > MAX_DEPTH) throw fail("nesting deeper than $MAX_DEPTH")
            if (atEnd()) throw fail("unexpected end")
            return when (text[at]) {
                '{' -> obj(depth)
                '[' -> array(depth)
                '"' -> string()
                't' -> literal("true", true)
                'f' -> literal("false", false)
                'n' -> literal("null", null)
                else -> number()
            }
        }

        fun literal(word: String, result: Any?): Any? {
            if (!text.startsWith(word, at)) throw fail("unexpected character '${text[at]}'")
            at += word.length
            return result
        }

        fun obj(depth: Int): Map<String, Any?> {
            val result = LinkedHashMap<String, Any?>()
            members('}', "object") {
                if (atEnd() || text[at] != '"') throw fail("expected a member name")
                val key = string()
                skipSpace()
                if (atEnd() || text[at] != ':') throw fail("expected ':'")
                at++
                skipSpace()
                result[key] = value(depth + 1)
            }
            return result
        }

        fun array(depth: Int): List<Any?> {
            val result = ArrayList<Any?>()
            members(']', "array") { result.add(value(depth + 1)) }
            return result
        }

        /** The comma-separated members of an object or array, each read by [member], up to [close]. */
        private inline fun members(close: Char, what: String, member: () -> Unit) {
            at++
            skipSpace()
            if (at < text.length && text[at] == close) {
                at++
                return
            }
            while (true) {
                skipSpace()
                member()
                skipSpace()
                if (atEnd()) throw fail("unterminated $what")
                when (text[at]) {
                    ',' -> at++
                    close -> {
                        at++
                        return
                    }
                    else -> throw fail("expected ',' or '$close'")
                }
            }
        }

        fun string(): String {
            at++
            val out = StringBuilder()
            while (true) {
                if (atEnd()) throw fail("unterminated string")
                val c = text[at++]
                when {
                    c == '"' -> return out.toString()
                    c == '\\' -> {
                        if (atEnd()) throw fail("unterminated escape")
                        when (val e = text[at++]) {
                            '"' -> out.append('"')
                            '\\' -> out.append('\\')
                            '/' -> out.append('/')
                            'b' -> out.append('\b')
                            'f' -> out.append('\u000C')
                            'n' -> out.append('\n')
                            'r' -> out.append('\r')
                            't' -> out.append('\t')
                            'u' -> {
                                if (at + 4 > text.length) throw fail("short \\u escape")
                                val hex = text.substring(at, at + 4)
                                if (!hex.all { it in '0'..'9' || it in 'a'..'f' || it in 'A'..'F' }) {
                                    throw fail("bad \\u escape")
                                }
                                out.append(Integer.parseInt(hex, 16).toChar())
                                at += 4
                            }
                            else -> throw fail("bad escape '\\$e'")
                        }
                    }
                    c < ' ' -> throw fail("control character in a string")
                    else -> out.append(c)
                }
            }
        }

        fun number(): Any {
            val start = at
            if (at < text.length && text[at] == '-') at++
            val digitsStart = at
            while (at < text.length && text[at] in '0'..'9') at++
            if (at == digitsStart) throw fail("unexpected character")
            if (at - digitsStart > 1 && text[digitsStart] == '0') throw fail("leading zero")
            var integral = true
            if (at < text.length && text[at] == '.') {
                integral = false
                at++
                val fraction = at
                while (at < text.length && text[at] in '0'..'9') at++
                if (at == fraction) throw fail("digits expected after '.'")
            }
            if (at < text.length && (text[at] == 'e' || text[at] == 'E')) {
                integral = false
                at++
                if (at < text.length && (text[at] == '+' || text[at] == '-')) at++
                val exponent = at
                while (at < text.length && text[at] in '0'..'9') at++
                if (at == exponent) throw fail("digits expected in the exponent")
            }
            val literal = text.substring(start, at)
            if (integral) literal.toLongOrNull()?.let { return it }
            return literal.toDouble()
        }
    }
}
