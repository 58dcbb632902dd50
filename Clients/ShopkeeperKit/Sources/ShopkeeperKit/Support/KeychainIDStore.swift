#if canImport(Security)
    import Foundation
    import Security

    /// ``InstallIDs`` in the Keychain, which keeps them when the app is deleted and installed again: one generic
    /// password item (the ids as JSON), readable after the device's first unlock (so background launches find it),
    /// never synchronized to the person's other devices (each device has its own device id). Kept small on
    /// purpose: what to do with the ids is decided by ``Shopkeeper``'s plain rules, tested on every platform.
    public struct KeychainIDStore: IDStore {
        /// The item's service (`kSecAttrService`).
        public let service: String
        /// The item's account (`kSecAttrAccount`).
        public let account: String

        /// The item `service`/`account` (one per Shopkeeper the app uses).
        public init(service: String = "Shopkeeper", account: String = "install-ids") {
            self.service = service
            self.account = account
        }

        private var item: [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account, kSecAttrSynchronizable as String: false,
            ]
        }

        /// The kept ids, if any.
        public func read() throws(ShopkeeperError) -> InstallIDs? {
            var query = item
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = result as? Data else {
                throw .storage("the Keychain answered \(status) reading the install ids")
            }
            do { return try JSONCoding.decoder().decode(InstallIDs.self, from: data) } catch {
                throw .storage("the install ids in the Keychain are unreadable: \(error)")
            }
        }

        /// Keeps the ids (adds the item, or updates it).
        public func write(_ ids: InstallIDs) throws(ShopkeeperError) {
            let data: Data
            do { data = try JSONCoding.encoder().encode(ids) } catch { throw .storage("\(error)") }
            let update: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
            ]
            var status = SecItemUpdate(item as CFDictionary, update as CFDictionary)
            if status == errSecItemNotFound {
                status = SecItemAdd(item.merging(update) { _, new in new } as CFDictionary, nil)
            }
            guard status == errSecSuccess else {
                throw .storage("the Keychain answered \(status) keeping the install ids")
            }
        }
    }
#endif
