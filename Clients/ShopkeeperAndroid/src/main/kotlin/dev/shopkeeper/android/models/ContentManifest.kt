package dev.shopkeeper.android.models

import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.jsonOf
import java.time.Instant

/** What to download for a product, and where (schema `ContentManifest`). */
data class ContentManifest(
    val productId: String,
    /** The pack's version. */
    val version: String,
    /** The oldest app version that may use it. */
    val minAppVersion: String?,
    val publishedAt: Instant,
    /** Bytes of all files. */
    val totalSize: Long,
    /** When the URLs stop working. */
    val expiresAt: Instant,
    /** What entitles the customer (`purchase`, `subscription`, `promotional`, `free_claim`, `trial`). */
    val source: String,
    val files: List<ManifestFile>
) {
    fun toJson() = jsonOf(
        "product_id" to productId, "version" to version, "min_app_version" to minAppVersion,
        "published_at" to publishedAt, "total_size" to totalSize, "expires_at" to expiresAt, "source" to source,
        "files" to files.map { it.toJson() }
    )

    companion object {
        fun from(json: JsonObject) = ContentManifest(
            json.string("product_id"), json.string("version"), json.stringOrNull("min_app_version"),
            json.instant("published_at"), json.long("total_size"), json.instant("expires_at"), json.string("source"),
            json.list("files", ManifestFile.Companion::from)
        )
    }
}

/** One file of a manifest (schema `ManifestFile`). */
data class ManifestFile(
    /** The file's path in the pack. */
    val path: String,
    val size: Long,
    /** Its SHA-256, lowercase hex. */
    val sha256: String,
    /** The signed download URL (relative to the API's base URL unless absolute). */
    val url: String,
    /** Whether this device completed a download of it since its last reset. */
    val downloaded: Boolean
) {
    fun toJson() = jsonOf("path" to path, "size" to size, "sha256" to sha256, "url" to url, "downloaded" to downloaded)

    companion object {
        fun from(json: JsonObject) = ManifestFile(
            json.string("path"), json.long("size"), json.string("sha256"), json.string("url"), json.boolean("downloaded")
        )
    }
}

/** The answer to `POST /v1/customers/{app_user_id}/content/reset` (schema `ContentResetResponse`). */
data class ContentResetResponse(
    val appUserId: String,
    val deviceId: String,
    /** How many download records were forgotten. */
    val forgotten: Int,
    /** A fresh manifest of every product with content the customer is entitled to now. */
    val manifests: List<ContentManifest>
) {
    fun toJson() = jsonOf(
        "app_user_id" to appUserId, "device_id" to deviceId, "forgotten" to forgotten,
        "manifests" to manifests.map { it.toJson() }
    )

    companion object {
        fun from(json: JsonObject) = ContentResetResponse(
            json.string("app_user_id"), json.string("device_id"), json.int("forgotten"),
            json.list("manifests", ContentManifest.Companion::from)
        )
    }
}
