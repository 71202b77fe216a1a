import Crypto

/// The identity of an import: SHA-256 of what was read, lower-case hex, by which the same export imported twice is
/// recognised (docs/import.md, "The same export again"). A CSV file is its bytes; a repeaters bundle is its
/// `info.csv` and data sets in set order, each with its length first, so the zip and its unzipped folder are the same.
package struct ImportDigest {
    private var hash = SHA256()

    /// An empty digest.
    package init() {}

    /// The digest of a repeaters bundle's files.
    ///
    /// - Parameters:
    ///   - info: `info.csv`.
    ///   - dataSets: The data sets in set order.
    package init(info: NamedFile, dataSets: [NamedFile]) {
        for file in [info] + dataSets {
            withUnsafeBytes(of: UInt64(file.bytes.count).littleEndian) { hash.update(bufferPointer: $0) }
            hash.update(data: file.bytes)
        }
    }

    /// Adds the next bytes of a file.
    package mutating func update(_ bytes: [UInt8]) { hash.update(data: bytes) }

    /// The digest, lower-case hex.
    package func finalized() -> String {
        hash.finalize().map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
        }.joined()
    }
}
