import Foundation
import ShopkeeperStores
import SwiftASN1
import X509

/// Receipts, keys and hand-made ASN.1 shared by the receipt tests.
enum ReceiptFixtures {
    /// 2023-01-01T12:00:00Z.
    static let newYearNoon = Date(timeIntervalSince1970: 1_672_574_400)

    /// A receipt with every field set: two purchases, millisecond dates, optional values present and absent.
    static func receipt(creationDate: Date = Date()) -> AppReceipt {
        AppReceipt(
            receiptType: "ProductionSandbox",
            bundleId: "com.example.shöp",
            applicationVersion: "42",
            originalApplicationVersion: "1.0",
            creationDate: creationDate,
            expirationDate: nil,
            originalPurchaseDate: newYearNoon.addingTimeInterval(-86_400),
            opaqueValue: Data([0x01, 0x02, 0x03, 0xFF]),
            sha1Hash: Data(repeating: 0xAB, count: 20),
            inAppPurchases: [
                AppReceipt.InAppPurchase(
                    productId: "com.example.coins", transactionId: "1000000000000001",
                    purchaseDate: newYearNoon.addingTimeInterval(0.123)
                ),
                AppReceipt.InAppPurchase(
                    quantity: 1, productId: "com.example.monthly", transactionId: "1000000000000003",
                    originalTransactionId: "1000000000000002", purchaseDate: newYearNoon,
                    originalPurchaseDate: newYearNoon.addingTimeInterval(-30 * 86_400),
                    expiresDate: newYearNoon.addingTimeInterval(30 * 86_400),
                    cancellationDate: newYearNoon.addingTimeInterval(86_400.5),
                    webOrderLineItemId: 1_000_000_000_000_042, isTrialPeriod: true, isInIntroOfferPeriod: false,
                    promotionalOfferIdentifier: "winback"
                ),
            ]
        )
    }

    /// A 2048-bit RSA key made for these tests only (it protects nothing), as PKCS#1 DER in base64: the test
    /// target cannot generate RSA keys without _CryptoExtras.
    static func rsaKey() throws -> Certificate.PrivateKey {
        let der = Data(base64Encoded: rsaKeyBase64.joined()) ?? Data()
        return try Certificate.PrivateKey(pemDocument: PEMDocument(type: "RSA PRIVATE KEY", derBytes: Array(der)))
    }

    private static let rsaKeyBase64 = [
        "MIIEowIBAAKCAQEAuspGEBtxj0bE/21LnXuj4Qctx7CJ1nzUNNrj7e9m4KGG7r4uvLzLoT38C+DedSyMlsl0Mw+jFkaujXfLcoUO",
        "CCAeS1ZL8rzZUM84r+9bKcuDQxRBj8uQpfhS3+3PmGGrgF0G357gHvqVlMhIiagnrvsRZA69Vk0QVFGNFSA74zgTHq/CzjOjUYqh",
        "DpKMx4BfkjcyN+bZTqMnnu25KQMdFvrN7fSZ6qbvlFwD7uSGAa9Dx27MhClqrN+CQhAZILD8MoBQhW1KdxUcDd3Gu7HvQ0LbJLF9",
        "6/rOVfrcB9ACh4n/y49ZifCooXEUftVLzfFkvv5H39Wdg9paCjk4h8RTNQIDAQABAoIBAA7sv5lk3/d/Q5lXLc4JBYii7rUAdZsG",
        "QVxxyvmFgfZb4bCs0IYzHaAmGEAIuS2qoBciRJ8Z1kGe5y6VjlN5ryvWCSWi4RGlpkWPMSvZl7KouLXA5hYrwUSJqXGMCmTWFQJ+",
        "LGDszGKdShtnv2gEYBtao0KX7Of6412hYID6IN7gRqzdCloSaoEeAFub438UeuXMR0DqkQd0Nn4eeaktEEqCTtwcK/F/eWhvPuz3",
        "u0/lcf1sSnprJDDy0E0wIdv6agJAXK3oWnJoyULpZn1/SbSeyxX2m6+/lmzIoDSX+EKLjBVC4vA0RDZsrxm+vmbNGd+qKJ2hbkmx",
        "cxQVnrr9BncCgYEA4UqCUhtwRBqk40IPtfWvxN5+QITXdauO7fHQlLMeZGHASr2KaYoQUHAgcxbatyIQhQr0wO7LS61GNN6xpOF0",
        "8+fsgo9WUIMb9APnlqNXTln82YZ4ElFFkmGdC7Mx2MOs+s1WkoseBx+51GTzRII1XM4JwHOBqE1kKsQsLGyhoLMCgYEA1EBIK9Wn",
        "5LNQ7cCSCbzRm4tCY59eAM9JONp1a3ZfEHtqA2BfPEwui2U4o638vc40Gi/cus+WQ13OFrUQO0mcGOFtKYn/ZSzXtXxNSTQ01Bne",
        "KLDwU3X63brfRMtn+ncxS6UgJxRfSN02zAVblJQvkX98RrTNNAC4+e+Cm0ri4HcCgYAlB64r+L6XMxnvEKisa9mcLkXqLOuNN8mi",
        "aqCyEE7qiPamUkkx17OexQ9QW21PtJWqiIZ6P8XChpSHlCL2yugCPxiszQqO6T3q+clTBT4QbtIUnvmVaS5aRRkfFzEWQ/NmteGI",
        "7LzexuQwePdTR2OmAWew7ktdcnsIXH42PxTB6QKBgQCAosDayC9r3P10Slx3yFbkxR6kUAbhyL8g1M2LJn9w9ssGZtbxLV6cHumX",
        "0a+2vQ04vb8x/POdunFXs761n+QZ9C17mmYNxIKrPD1+20QVM+Q/lxTgEEXNMh90iy5mTuyyYs48wQ0KlP9L4Qdi4fh+XtxL4fHn",
        "zXRODcmDInyj+wKBgCiP2aVUzZWtRxuGoGPemhjJBw1PvpZkLKDF2JS8Ff0G2CgyTHwdyAKKfEL8gHzuKW4R581LVIxoIME5b+Qy",
        "rgMAipDglYsNinjRpfw5skysgSixChyIZz9xpnGkkh6NK2523/TndNtJWJuOEN1Fjc+ZE3kGaXesMi9yQMg11vIU",
    ]

    /// A receipt-signing leaf for `key`, issued by `chain`'s intermediate.
    static func leaf(for key: Certificate.PrivateKey, in chain: SigningChain) throws -> Certificate {
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            AppleMarkerExtension.extensionValue(AppleMarkerExtension.receiptSigning)
        }
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: Date(timeIntervalSinceNow: -86_400), notValidAfter: Date(timeIntervalSinceNow: 86_400),
            issuer: chain.intermediate.subject,
            subject: try DistinguishedName { CommonName("RSA receipt signer") },
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(chain.intermediateKey)
        )
    }

    // MARK: Hand-made payloads

    /// The DER of one `ReceiptAttribute`.
    static func attribute(_ type: Int64, _ value: [UInt8]) throws -> [UInt8] {
        var coder = DER.Serializer()
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(type)
            try coder.serialize(Int64(1))
            try coder.serialize(ASN1OctetString(contentBytes: value[...]))
        }
        return coder.serializedBytes
    }

    /// A SET around already encoded elements, unsorted (BER, as a sloppy or hostile writer would make it).
    static func set(_ elements: [[UInt8]]) -> [UInt8] {
        let content = elements.flatMap { $0 }
        return [0x31] + length(content.count) + content
    }

    static func der(_ value: some DERSerializable) throws -> [UInt8] {
        var coder = DER.Serializer()
        try coder.serialize(value)
        return coder.serializedBytes
    }

    static func utf8(_ text: String) throws -> [UInt8] { try der(ASN1UTF8String(text)) }
    static func ia5(_ text: String) throws -> [UInt8] { try der(ASN1IA5String(text)) }

    /// The required attributes of a receipt, plus `extra`.
    static func payload(_ extra: [[UInt8]] = [], bundleId: [UInt8]? = nil) throws -> [UInt8] {
        set(
            [
                try attribute(0, utf8("Production")),
                try attribute(2, bundleId ?? utf8("com.example.app")),
                try attribute(3, utf8("7")),
                try attribute(4, [0x00]),
                try attribute(5, [0x01]),
                try attribute(12, ia5("2023-01-01T12:00:00Z")),
                try attribute(19, utf8("1.0")),
            ] + extra)
    }

    private static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
