package dev.shopkeeper.android

import dev.shopkeeper.android.core.Dates
import dev.shopkeeper.android.core.Json
import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.ShopkeeperException
import java.time.Instant
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

/** The small JSON reader and writer the client maps the server's answers with. */
class JsonTest {
    @Test
    fun readsEveryKindOfValue() {
        val value = Json.parse(
            """ {"s": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "i": -42, "l": 9007199254740993, "d": 1.5e3, "f": 0.25,
                "t": true, "n": null, "a": [1, [], {}], "o": {"x": false}} """
        ) as Map<*, *>
        assertEquals("a\"b\\c/d\né\uD83D\uDE00", value["s"])
        assertEquals(-42L, value["i"])
        assertEquals(9007199254740993L, value["l"])
        assertEquals(1500.0, value["d"])
        assertEquals(0.25, value["f"])
        assertEquals(true, value["t"])
        assertTrue(value.containsKey("n"))
        assertNull(value["n"])
        assertEquals(listOf(1L, emptyList<Any>(), emptyMap<String, Any>()), value["a"])
        assertEquals(mapOf("x" to false), value["o"])
        assertEquals(listOf("s", "i", "l", "d", "f", "t", "n", "a", "o"), value.keys.toList())
    }

    @Test
    fun writesWhatItReads() {
        val text = """{"s":"quote \" backslash \\ tab \t nul \u0000 line \u2028 é","n":null,"a":[1,2.5,true,{}],"e":[]}"""
        val value = Json.parse(text)
        assertEquals(value, Json.parse(Json.write(value)))
        assertEquals(text, Json.write(value))
        assertEquals("3", Json.write(3.0))
        assertEquals("{\"k\":[\"v\"]}", Json.write(mapOf("k" to listOf("v"))))
    }

    @Test
    fun refusesWhatIsNotJson() {
        val bad = listOf(
            "", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "01", "1.", "-", "1e", "\"\\x\"", "\"\\u12\"", "\"a", "tru",
            "nul", "{} x", "\"tab\there\"", "[1 2]", "{1:2}", "NaN"
        )
        for (text in bad) {
            try {
                Json.parse(text)
                fail("parsed '$text'")
            } catch (error: ShopkeeperException.Decoding) {
                assertTrue(error.message ?: "", (error.message ?: "").startsWith("JSON: "))
            }
        }
    }

    @Test
    fun refusesNestingTooDeepForTheStack() {
        val deep = "[".repeat(Json.MAX_DEPTH + 2) + "]".repeat(Json.MAX_DEPTH + 2)
        try {
            Json.parse(deep)
            fail("parsed $deep")
        } catch (error: ShopkeeperException.Decoding) {
            assertTrue(error.message ?: "", (error.message ?: "").contains("nesting"))
        }
        Json.parse("[".repeat(100) + "]".repeat(100))
    }

    @Test
    fun aMissingOrMistypedFieldNamesItsPointer() {
        val json = JsonObject.parse("""{"a": {"b": [{"c": "x"}, {"c": 3}]}, "n": 1.5}""")
        try {
            json.obj("a").list("b") { it.string("c") }
            fail("decoded a number as a string")
        } catch (error: ShopkeeperException.Decoding) {
            assertEquals("/a/b/1/c: not a string", error.message)
        }
        try {
            json.int("n")
            fail("decoded 1.5 as an integer")
        } catch (error: ShopkeeperException.Decoding) {
            assertEquals("/n: not an integer", error.message)
        }
        try {
            json.string("missing")
            fail("decoded a missing member")
        } catch (error: ShopkeeperException.Decoding) {
            assertEquals("/missing: a string is required", error.message)
        }
        assertNull(json.stringOrNull("missing"))
    }

    @Test
    fun datesAreRfc3339InUtcToTheSecond() {
        assertEquals(Instant.parse("2026-03-01T12:00:00Z"), Dates.parse("2026-03-01T12:00:00Z"))
        assertEquals(Instant.parse("2026-03-01T12:00:00.250Z"), Dates.parse("2026-03-01T12:00:00.25Z"))
        assertEquals(Instant.parse("2026-03-01T11:00:00Z"), Dates.parse("2026-03-01T12:00:00+01:00"))
        assertNull(Dates.parse("2026-03-01"))
        assertNull(Dates.parse("yesterday"))
        assertEquals("2026-03-01T12:00:00Z", Dates.format(Instant.parse("2026-03-01T12:00:00.999Z")))
    }
}
