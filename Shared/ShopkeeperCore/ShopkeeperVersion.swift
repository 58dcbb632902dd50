/// The version of this Shopkeeper release: the one place it is written. `shopkeeper --version` prints it.
///
/// It is the software's version, bumped on each release; the API's own version is `info.version` in
/// `docs/openapi.yaml`, which changes only with the API.
package enum ShopkeeperVersion {
    /// `MAJOR.MINOR.PATCH`, with a `-dev` suffix between releases.
    package static let current = "0.1.0"
}
