package dev.shopkeeper.android.content

import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.Sha256
import dev.shopkeeper.android.core.ShopkeeperApi
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.core.jsonOf
import dev.shopkeeper.android.models.ContentManifest
import dev.shopkeeper.android.models.ManifestFile
import dev.shopkeeper.android.models.PurchaseProof
import dev.shopkeeper.android.support.JsonFile
import java.io.File
import java.io.FileInputStream
import java.io.FileOutputStream
import java.io.IOException
import java.nio.file.Files
import java.nio.file.StandardCopyOption
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext

/** A product's content pack as it lies on the device, every file checked against its manifest's SHA-256. */
data class ContentPack(
    val productId: String,
    val version: String,
    /** The folder holding the pack's files. */
    val directory: File,
    /** Each file's path in the pack to where it lies. */
    val files: Map<String, File>,
    /** Bytes fetched by this call (`0` when everything was there already; less than the pack after a resume). */
    val downloadedBytes: Long
)

/**
 * Content packs on the device, under the storage directory's `content/<product>/<version>/` (ShopkeeperKit's layout
 * and rules): what the device lacks is downloaded, resuming a broken file with `Range` / `If-Range`, every file is
 * checked against its SHA-256 (fetched once more from the start when it does not match), older versions are removed,
 * and a pack whose purchase was refunded or revoked is deleted. Reached as `Shopkeeper.content`.
 */
class ContentDownloads internal constructor(
    private val api: ShopkeeperApi,
    storageDirectory: File,
    private val appVersion: String,
    /** The current app user id and the device id. */
    private val who: () -> Pair<String, String>,
    /** The proof of the last delivered purchase of each product. */
    private val deliveredProofs: () -> Map<String, PurchaseProof>
) {
    private val root = File(storageDirectory, "content")
    private val index = JsonFile(File(root, "index.json"))

    /** Downloads what the device lacks of the product's newest pack; throws [ShopkeeperException.ContentRevoked]
     * (after deleting the pack) when the server says the purchase was refunded or revoked. */
    suspend fun download(productId: String): ContentPack {
        val (user, device) = who()
        val manifest = try {
            api.contentManifest(productId, user, device, appVersion)
        } catch (error: ShopkeeperException.Server) {
            if (error.code == "revoked") revoked(productId)
            throw error
        }
        return install(manifest)
    }

    /** Claims a product the catalog marks free and downloads its pack. */
    suspend fun claimFree(productId: String): ContentPack {
        val (user, device) = who()
        return install(api.claimFreeContent(productId, user, device, appVersion))
    }

    /**
     * Asks Shopkeeper whether the purchases behind the downloaded packs still stand (`POST /v1/receipts/validate`) and
     * deletes the packs whose answer says `content_action: delete`. Answers the products whose packs were deleted.
     */
    suspend fun checkDownloaded(): List<String> {
        val deleted = ArrayList<String>()
        val proofs = deliveredProofs()
        for (productId in packs().keys.sorted()) {
            val proof = proofs[productId] ?: continue
            if (api.validate(proof).contentAction == "delete") {
                delete(productId)
                deleted.add(productId)
            }
        }
        return deleted
    }

    /**
     * Deletes every downloaded pack and downloads again each the customer is entitled to now: Shopkeeper forgets this
     * device's downloads first, so nothing is deleted when it cannot be asked.
     */
    suspend fun reset(): List<ContentPack> {
        val (user, device) = who()
        val reset = api.resetContent(user, device, appVersion)
        synchronized(this) { if (root.exists() && !root.deleteRecursively()) throw ShopkeeperException.Storage("cannot delete $root") }
        return reset.manifests.map { install(it) }
    }

    /** Removes a product's pack from the device. */
    fun delete(productId: String) = synchronized(this) {
        val folder = File(root, safe(productId))
        if (folder.exists() && !folder.deleteRecursively()) throw ShopkeeperException.Storage("cannot delete $folder")
        writePacks(packs() - productId)
    }

    private fun revoked(productId: String): Nothing {
        delete(productId)
        throw ShopkeeperException.ContentRevoked(productId)
    }

    private suspend fun install(manifest: ContentManifest): ContentPack {
        val product = safe(manifest.productId)
        val version = safe(manifest.version)
        var verified = synchronized(this) { packs()[manifest.productId] }
            ?.takeIf { it.first == manifest.version }?.second ?: emptyMap()
        val files = LinkedHashMap<String, File>()
        var fetched = 0L
        for (file in manifest.files) {
            val target = File(File(File(root, product), version), safe(file.path))
            if (verified[file.path] != file.sha256 || !target.isFile) {
                fetched += download(file, manifest, target)
                verified = verified + (file.path to file.sha256)
                synchronized(this) { writePacks(packs() + (manifest.productId to Pair(manifest.version, verified))) }
            }
            files[file.path] = target
        }
        synchronized(this) { writePacks(packs() + (manifest.productId to Pair(manifest.version, verified))) }
        File(root, product).listFiles()?.forEach { if (it.name != version && it.name != ".partial") it.deleteRecursively() }
        return ContentPack(manifest.productId, manifest.version, File(File(root, product), version), files, fetched)
    }

    /** Fetches one file into its partial file from where it stopped, checks it and moves it into place. */
    private suspend fun download(file: ManifestFile, manifest: ContentManifest, target: File): Long {
        val partial = File(File(File(File(root, safe(manifest.productId)), ".partial"), safe(manifest.version)), safe(file.path) + ".part")
        var fetched = 0L
        for (round in 0..1) {
            fetched += fill(partial, api.downloadUrl(file), file, manifest.productId)
            if (partial.isFile && sha256(partial) == file.sha256) {
                try {
                    target.absoluteFile.parentFile.mkdirs()
                    Files.move(partial.toPath(), target.toPath(), StandardCopyOption.REPLACE_EXISTING)
                } catch (error: IOException) {
                    throw ShopkeeperException.Storage("cannot move ${file.path} into place: $error", error)
                }
                return fetched
            }
            partial.delete()
        }
        throw ShopkeeperException.ChecksumMismatch(file.path)
    }

    /** Appends the missing bytes of the file to [partial], one ranged request per piece of 4 MiB. */
    private suspend fun fill(partial: File, url: String, file: ManifestFile, productId: String): Long {
        val piece = 4L shl 20
        var fetched = 0L
        partial.absoluteFile.parentFile.mkdirs()
        while (true) {
            val have = if (partial.isFile) partial.length() else 0L
            if (have > file.size) {
                // More than the manifest says: not this file. The check fails, and the next round starts over.
                partial.delete()
                return fetched
            }
            if (have == file.size) return fetched
            val headers = mapOf(
                "Range" to "bytes=$have-${Math.min(have + piece, file.size) - 1}", "If-Range" to "\"${file.sha256}\""
            )
            val answer = try {
                api.download(url, headers)
            } catch (error: ShopkeeperException.Server) {
                if (error.code == "revoked") revoked(productId)
                throw error
            }
            // 206 continues the file; 200 is the whole file (the range was not honoured): it starts over with it.
            write(partial, answer.body, append = answer.status == 206)
            fetched += answer.body.size
        }
    }

    private suspend fun write(file: File, bytes: ByteArray, append: Boolean) = withContext(Dispatchers.IO) {
        try {
            FileOutputStream(file, append).use { it.write(bytes) }
        } catch (error: IOException) {
            throw ShopkeeperException.Storage("cannot write ${file.name}: $error", error)
        }
    }

    /** Product id to (version, path to checked SHA-256), as `content/index.json` keeps them. */
    private fun packs(): Map<String, Pair<String, Map<String, String>>> {
        val json = index.read()?.objOrNull("packs") ?: return emptyMap()
        val result = LinkedHashMap<String, Pair<String, Map<String, String>>>()
        for (product in json.fields.keys) {
            val entry = json.obj(product)
            val verified = entry.obj("verified")
            result[product] = Pair(entry.string("version"), verified.fields.keys.associateWith { verified.string(it) })
        }
        return result
    }

    private fun writePacks(packs: Map<String, Pair<String, Map<String, String>>>) = index.write(
        jsonOf("packs" to packs.mapValues { jsonOf("version" to it.value.first, "verified" to it.value.second) })
    )

    companion object {
        /** SHA-256 of a file, lowercase hex. */
        fun sha256(file: File): String {
            val digest = Sha256.digest()
            FileInputStream(file).use { input ->
                val buffer = ByteArray(64 * 1024)
                while (true) {
                    val count = input.read(buffer)
                    if (count < 0) break
                    digest.update(buffer, 0, count)
                }
            }
            return Sha256.hex(digest)
        }

        /** A path from the server, refused when it could leave the pack's folder (`..`, absolute, empty parts). */
        fun safe(path: String): String {
            val parts = path.split("/")
            if (path == "" || parts.any { it == "" || it == "." || it == ".." || it.contains('\\') || it.contains('\u0000') }) {
                throw ShopkeeperException.Decoding("unsafe content path: $path")
            }
            return path
        }
    }
}
