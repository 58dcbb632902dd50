import ShopkeeperCore
import Testing

/// The hand-off headers between the content service and the gateway: read back as written, and refused when they
/// would send anything but a range of a file inside the volume.
@Suite struct FileHandoffTests {
    static func parse(_ headers: [(String, String)]) -> FileHandoff? {
        FileHandoff { name in headers.first { $0.0 == name }?.1 }
    }

    static let valid = FileHandoff(
        path: "packs/app/garden/1/levels/map.bin", range: 5...99, fileSize: 100, downloadID: 42)

    @Test func readsBackWhatItWrites() {
        #expect(Self.parse(Self.valid.headers) == Self.valid)
        #expect(Self.valid.length == 95)
    }

    @Test(arguments: [
        ("x-shopkeeper-file", "/etc/passwd"),
        ("x-shopkeeper-file", "packs/../../etc/passwd"),
        ("x-shopkeeper-file", "packs/./a"),
        ("x-shopkeeper-file", "packs//a"),
        ("x-shopkeeper-file", ""),
        ("x-shopkeeper-file-range", "5-100"),
        ("x-shopkeeper-file-range", "9-5"),
        ("x-shopkeeper-file-range", "-1-5"),
        ("x-shopkeeper-file-range", "5"),
        ("x-shopkeeper-file-size", "many"),
        ("x-shopkeeper-download-id", ""),
    ])
    func refusesWhatLeavesTheVolumeOrTheFile(name: String, value: String) {
        let headers = Self.valid.headers.map { $0.0 == name ? (name, value) : $0 }
        #expect(Self.parse(headers) == nil)
    }

    @Test func needsEveryHeader() {
        for dropped in Self.valid.headers.map(\.0) {
            #expect(Self.parse(Self.valid.headers.filter { $0.0 != dropped }) == nil)
        }
    }
}
