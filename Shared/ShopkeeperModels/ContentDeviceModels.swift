import Foundation

/// `GET /v1/customers/{app_user_id}/content/devices`: the devices that downloaded content under an app user id.
package struct ContentDeviceList: Codable, Sendable, Equatable {
    package var appUserID: String
    /// Most recently active first.
    package var devices: [ContentDevice]

    package init(appUserID: String, devices: [ContentDevice]) {
        self.appUserID = appUserID
        self.devices = devices
    }

    package enum CodingKeys: String, CodingKey {
        case devices
        case appUserID = "app_user_id"
    }
}

/// One device's downloads: what counts since its last reset, and when it was last reset.
package struct ContentDevice: Codable, Sendable, Equatable {
    package var deviceID: String
    /// Downloads (requests that sent bytes) since the last reset.
    package var downloads: Int
    /// Distinct files downloaded to their end since the last reset.
    package var completedFiles: Int
    package var bytesSent: Int64
    /// The pack versions downloaded from since the last reset.
    package var packs: [ContentDevicePack]
    package var lastDownloadAt: Date
    /// `nil` when the device was never reset.
    package var lastResetAt: Date?

    package init(
        deviceID: String, downloads: Int, completedFiles: Int, bytesSent: Int64, packs: [ContentDevicePack],
        lastDownloadAt: Date, lastResetAt: Date?
    ) {
        self.deviceID = deviceID
        self.downloads = downloads
        self.completedFiles = completedFiles
        self.bytesSent = bytesSent
        self.packs = packs
        self.lastDownloadAt = lastDownloadAt
        self.lastResetAt = lastResetAt
    }

    package enum CodingKeys: String, CodingKey {
        case downloads, packs
        case deviceID = "device_id"
        case completedFiles = "completed_files"
        case bytesSent = "bytes_sent"
        case lastDownloadAt = "last_download_at"
        case lastResetAt = "last_reset_at"
    }
}

/// A pack version a device downloaded from.
package struct ContentDevicePack: Codable, Sendable, Hashable {
    package var productID: String
    package var version: String

    package init(productID: String, version: String) {
        self.productID = productID
        self.version = version
    }

    package enum CodingKeys: String, CodingKey {
        case version
        case productID = "product_id"
    }
}
