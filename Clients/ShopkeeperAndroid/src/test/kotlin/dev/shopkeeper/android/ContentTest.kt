package dev.shopkeeper.android

import dev.shopkeeper.android.content.ContentDownloads
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.core.jsonOf
import dev.shopkeeper.android.purchases.Shopkeeper
import java.io.File
import java.security.MessageDigest
import kotlinx.coroutines.runBlocking
import org.junit.After
import org.junit.Assert.assertArrayEquals
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

/** Content packs against a real local HTTP server: ranged downloads that resume, SHA-256 checks, revocation. */
class ContentTest {
    private val server = TestServer()
    private val storage: File = temporaryDirectory()
    private val level = ByteArray(10_000) { (it * 7 % 251).toByte() }
    private val readme = "grow tulips".toByteArray()

    @Volatile
    private var revoked = false
    @Volatile
    private var corrupt = false

    private fun sha256(bytes: ByteArray) = MessageDigest.getInstance("SHA-256").digest(bytes).joinToString("") { String.format("%02x", it) }

    private fun file(path: String, bytes: ByteArray) = jsonOf(
        "path" to path, "size" to bytes.size, "sha256" to sha256(bytes), "url" to "/files/$path?sig=abc", "downloaded" to false
    )

    init {
        server.handler = { request ->
            when {
                revoked -> Reply.problem(403, "revoked")
                request.path == "/v1/content/garden" -> Reply.json(
                    200,
                    jsonOf(
                        "product_id" to "garden", "version" to "1.0.0", "published_at" to Answers.DATE,
                        "total_size" to level.size + readme.size, "expires_at" to "2026-03-01T13:00:00Z", "source" to "purchase",
                        "files" to listOf(file("levels/1.bin", level), file("README.txt", readme))
                    )
                )
                request.path.startsWith("/files/") -> {
                    val bytes = if (request.path.endsWith("1.bin")) level else readme
                    val body = if (corrupt) ByteArray(bytes.size) else bytes
                    val range = request.header("Range")?.removePrefix("bytes=")?.split("-")
                    if (range == null) Reply(200, bytes = body)
                    else {
                        val from = range[0].toInt()
                        val to = range[1].toInt()
                        Reply(206, headers = mapOf("Content-Range" to "bytes $from-$to/${bytes.size}"), bytes = body.copyOfRange(from, to + 1))
                    }
                }
                else -> Reply.problem(404, "not_found")
            }
        }
    }

    @After
    fun tearDown() {
        server.close()
        storage.deleteRecursively()
    }

    private fun shopkeeper() = Shopkeeper(configuration(server, storage), MemoryDeviceStore())

    @Test
    fun downloadsChecksAndKeepsAPack() = runBlocking<Unit> {
        val shopkeeper = shopkeeper()
        val pack = shopkeeper.content.download("garden")
        assertEquals("1.0.0", pack.version)
        assertArrayEquals(level, pack.files.getValue("levels/1.bin").readBytes())
        assertArrayEquals(readme, pack.files.getValue("README.txt").readBytes())
        assertEquals((level.size + readme.size).toLong(), pack.downloadedBytes)
        val ranges = server.requests.filter { it.path.startsWith("/files/") }
        assertTrue(ranges.all { it.header("Authorization") == null })
        assertEquals("\"${sha256(level)}\"", ranges[0].header("If-Range"))
        // Everything is there: nothing is fetched again.
        assertEquals(0L, shopkeeper.content.download("garden").downloadedBytes)
    }

    @Test
    fun aBrokenDownloadResumesWhereItStopped() = runBlocking<Unit> {
        // Half of the level arrived before the connection broke.
        val partial = File(storage, "content/garden/.partial/1.0.0/levels/1.bin.part")
        partial.parentFile.mkdirs()
        partial.writeBytes(level.copyOfRange(0, 4000))
        val pack = shopkeeper().content.download("garden")
        assertArrayEquals(level, pack.files.getValue("levels/1.bin").readBytes())
        assertEquals((level.size - 4000 + readme.size).toLong(), pack.downloadedBytes)
        assertEquals("bytes=4000-9999", server.requests.first { it.path.endsWith("1.bin") }.header("Range"))
    }

    @Test
    fun aFileThatDoesNotMatchItsChecksumIsFetchedAgainThenRefused() = runBlocking<Unit> {
        corrupt = true
        try {
            shopkeeper().content.download("garden")
            fail("kept a corrupt file")
        } catch (error: ShopkeeperException.ChecksumMismatch) {
            assertEquals("levels/1.bin", error.path)
        }
        assertEquals(2, server.requests.count { it.path.endsWith("1.bin") })
        assertFalse(File(storage, "content/garden/1.0.0/levels/1.bin").exists())
    }

    @Test
    fun aRevokedPurchasesPackIsDeleted() = runBlocking<Unit> {
        val shopkeeper = shopkeeper()
        val pack = shopkeeper.content.download("garden")
        assertTrue(pack.directory.isDirectory)
        revoked = true
        try {
            shopkeeper.content.download("garden")
            fail("a revoked pack was kept")
        } catch (error: ShopkeeperException.ContentRevoked) {
            assertEquals("garden", error.productId)
        }
        assertFalse(File(storage, "content/garden").exists())
    }

    @Test
    fun anAnswerLongerThanTheFileIsNotKept() = runBlocking<Unit> {
        val real = server.handler
        server.handler = { request ->
            if (request.path.endsWith("1.bin")) Reply(206, bytes = ByteArray(level.size + 1)) else real(request)
        }
        try {
            shopkeeper().content.download("garden")
            fail("kept an answer longer than the file")
        } catch (error: ShopkeeperException.ChecksumMismatch) {
            assertEquals("levels/1.bin", error.path)
        }
    }

    @Test
    fun aPathThatLeavesThePackIsRefused() {
        for (path in listOf("../state.json", "/etc/passwd", "a//b", "a/./b", "", "a\\..\\b")) {
            try {
                ContentDownloads.safe(path)
                fail("accepted $path")
            } catch (error: ShopkeeperException.Decoding) {
            }
        }
        assertEquals("levels/1.bin", ContentDownloads.safe("levels/1.bin"))
    }
}
