import CZlibInflate

/// The zip a repeaters bundle comes in, read from its bytes with every offset, size and ratio checked before a byte
/// is inflated, so that a damaged archive is refused at once and a zip bomb is refused before it fills memory.
///
/// Only what the app's bundles use is read: one disk, no encryption, entries stored or deflated, sizes in the
/// 32-bit fields (no ZIP64: a bundle is far below 4 GiB). The central directory is the index; each entry's local
/// header is read only to find where its data starts. Inflating is zlib's raw inflate, fed exactly the entry's
/// compressed bytes and stopped at its declared size: compressed data that ends early, runs on past its size, or
/// fails its CRC-32 is refused, never waited on (`docs/import.md`, "Zip limits").
package enum ZipArchive {
    /// How much an archive may hold. The defaults are `docs/import.md`'s "Zip limits".
    package struct Limits: Sendable, Equatable {
        /// The largest entry once inflated, in bytes.
        package var entryBytes: Int
        /// All entries together once inflated, in bytes.
        package var totalBytes: Int
        /// The highest inflated-to-compressed ratio of an entry larger than ``ratioFloorBytes``.
        package var ratio: Int
        /// Entries up to this size (inflated) are not held to ``ratio``: a small file of repeated lines compresses
        /// far better than a set does, and cannot fill memory anyway.
        package var ratioFloorBytes: Int
        /// The most entries an archive may list.
        package var entries: Int

        /// The limits for a repeaters bundle. A data set is the Progressor's fastest stream (80 Hz) for an hour,
        /// longer than any set of a repeaters protocol, at the app's widest line (about 40 bytes: a time and a
        /// 17-digit weight): 11.5 MB; 32 MiB per entry leaves room for that, 256 MiB for a whole bundle is eight such
        /// sets. The app's CSV deflates about 3:1; 100:1 is far above any export and far below a bomb's (deflate reaches
        /// 1032:1).
        package static let repeatersBundle = Limits(
            entryBytes: 32 << 20, totalBytes: 256 << 20, ratio: 100, ratioFloorBytes: 1 << 20, entries: 1000)

        /// Creates limits.
        package init(entryBytes: Int, totalBytes: Int, ratio: Int, ratioFloorBytes: Int, entries: Int) {
            self.entryBytes = entryBytes
            self.totalBytes = totalBytes
            self.ratio = ratio
            self.ratioFloorBytes = ratioFloorBytes
            self.entries = entries
        }
    }

    /// One file in the archive, as its central directory lists it (checked against the archive's bytes).
    package struct Entry: Sendable, Equatable {
        /// The path inside the archive, e.g. `session/data_set_2.csv`.
        package var path: String
        /// 0: stored, 8: deflated.
        var method: UInt16
        /// Where the compressed bytes are in the archive.
        var data: Range<Int>
        /// The inflated size the directory declares.
        package var size: Int
        var crc32: UInt32
    }

    /// The files an archive lists (directories left out), checked: every entry's local header and data lie inside
    /// the archive and before the central directory, its method is stored or deflate, it is not encrypted, and its
    /// declared size is within `limits`.
    ///
    /// - Parameters:
    ///   - bytes: The whole archive.
    ///   - file: The archive's name, for errors.
    ///   - limits: What the archive may hold.
    /// - Returns: The entries in directory order.
    /// - Throws: ``GripImportError`` naming the archive (or the entry) and what is wrong.
    package static func entries(_ bytes: [UInt8], file: String, limits: Limits = .repeatersBundle) throws(GripImportError) -> [Entry] {
        func damaged(_ what: String) -> GripImportError {
            GripImportError(file: file, line: nil, "not a readable zip archive (\(what)): unzip it and import the folder, or export it again")
        }
        // The end of central directory record: 22 bytes, then a comment of up to 65535 bytes.
        let eocdSize = 22
        guard bytes.count >= eocdSize else { throw damaged("too short to be a zip") }
        var eocd: Int? = nil
        var index = bytes.count - eocdSize
        let lowest = max(0, bytes.count - eocdSize - 0xFFFF)
        while index >= lowest {
            if bytes.u32(at: index) == 0x0605_4B50, index + eocdSize + Int(bytes.u16(at: index + 20)) == bytes.count {
                eocd = index
                break
            }
            index -= 1
        }
        guard let eocd else { throw damaged("no end of central directory") }
        let count = Int(bytes.u16(at: eocd + 10))
        let directorySize = Int(bytes.u32(at: eocd + 12))
        let directoryOffset = Int(bytes.u32(at: eocd + 16))
        guard bytes.u16(at: eocd + 4) == 0, bytes.u16(at: eocd + 6) == 0, bytes.u16(at: eocd + 8) == count else {
            throw damaged("a multi-disk archive")
        }
        guard count != 0xFFFF, directoryOffset != 0xFFFF_FFFF else { throw damaged("a ZIP64 archive") }
        guard count <= limits.entries else {
            throw GripImportError(file: file, line: nil, "the zip lists \(count) entries; a repeaters bundle has at most \(limits.entries)")
        }
        guard directoryOffset <= eocd, directorySize <= eocd - directoryOffset else {
            throw damaged("the central directory lies outside the file")
        }
        var entries: [Entry] = []
        var total = 0
        var position = directoryOffset
        let directoryEnd = directoryOffset + directorySize
        for number in 1..<(count + 1) {
            guard position + 46 <= directoryEnd, bytes.u32(at: position) == 0x0201_4B50 else {
                throw damaged("central directory entry \(number) is damaged")
            }
            let flags = bytes.u16(at: position + 8)
            let method = bytes.u16(at: position + 10)
            let crc = bytes.u32(at: position + 16)
            let compressed = Int(bytes.u32(at: position + 20))
            let size = Int(bytes.u32(at: position + 24))
            let nameLength = Int(bytes.u16(at: position + 28))
            let extraLength = Int(bytes.u16(at: position + 30))
            let commentLength = Int(bytes.u16(at: position + 32))
            let localOffset = Int(bytes.u32(at: position + 42))
            let next = position + 46 + nameLength + extraLength + commentLength
            guard next <= directoryEnd else { throw damaged("central directory entry \(number) is damaged") }
            let path = String(decoding: bytes[(position + 46)..<(position + 46 + nameLength)], as: UTF8.self)
            position = next
            let name = "\(file)/\(path)"
            if path.hasSuffix("/") { continue }
            guard flags & 1 == 0 else {
                throw GripImportError(file: name, line: nil, "the entry is encrypted: unzip it with its password and import the folder")
            }
            guard method == 0 || method == 8 else {
                throw GripImportError(file: name, line: nil, "compression method \(method) is not supported (only stored and deflate)")
            }
            guard compressed != 0xFFFF_FFFF, size != 0xFFFF_FFFF, localOffset != 0xFFFF_FFFF else { throw damaged("a ZIP64 archive") }
            // The local header: where the data starts.
            guard localOffset <= directoryOffset - 30, bytes.u32(at: localOffset) == 0x0403_4B50 else {
                throw GripImportError(file: name, line: nil, "the entry's local header is not where the directory says: the zip is damaged")
            }
            let start = localOffset + 30 + Int(bytes.u16(at: localOffset + 26)) + Int(bytes.u16(at: localOffset + 28))
            guard start <= directoryOffset, compressed <= directoryOffset - start else {
                throw GripImportError(file: name, line: nil, "the entry's data runs past the end of the archive: the zip is damaged")
            }
            guard method == 8 || compressed == size else {
                throw GripImportError(file: name, line: nil, "a stored entry whose sizes differ: the zip is damaged")
            }
            try check(size: size, compressed: compressed, name: name, limits: limits)
            total += size
            guard total <= limits.totalBytes else {
                throw GripImportError(
                    file: file, line: nil,
                    "the zip would inflate to more than \(limits.totalBytes >> 20) MiB, more than a repeaters bundle holds: it is not an export")
            }
            entries.append(Entry(path: path, method: method, data: start..<(start + compressed), size: size, crc32: crc))
        }
        return entries
    }

    private static func check(size: Int, compressed: Int, name: String, limits: Limits) throws(GripImportError) {
        guard size <= limits.entryBytes else {
            throw GripImportError(
                file: name, line: nil,
                "the entry would inflate to \(size) bytes, more than the \(limits.entryBytes >> 20) MiB a data set can hold: it is not an export")
        }
        guard size <= limits.ratioFloorBytes || size / max(1, compressed) <= limits.ratio else {
            throw GripImportError(
                file: name, line: nil,
                "the entry would inflate \(size / max(1, compressed)) times, more than an export compresses (\(limits.ratio) times): it is not an export")
        }
    }

    /// An entry's contents: its bytes inflated, no more than its declared size, checked against its CRC-32.
    ///
    /// - Parameters:
    ///   - entry: One of ``entries(_:file:limits:)``'s entries of the same `bytes`.
    ///   - bytes: The whole archive.
    ///   - file: The archive's name, for errors.
    /// - Returns: The entry's bytes.
    /// - Throws: ``GripImportError`` naming the entry when its data is damaged.
    package static func contents(of entry: Entry, in bytes: [UInt8], file: String) throws(GripImportError) -> [UInt8] {
        let name = "\(file)/\(entry.path)"
        func damaged(_ what: String) -> GripImportError {
            GripImportError(file: name, line: nil, "cannot be extracted: the zip is damaged (\(what))")
        }
        let output: [UInt8]
        if entry.method == 0 {
            output = Array(bytes[entry.data])
        } else {
            output = try inflate(bytes[entry.data], size: entry.size, damaged: damaged)
        }
        let crc = output.withUnsafeBufferPointer { buffer in
            UInt32(truncatingIfNeeded: CZlibInflate.crc32(0, buffer.baseAddress, UInt32(buffer.count)))
        }
        guard crc == entry.crc32 else { throw damaged("CRC-32 mismatch") }
        return output
    }

    /// Raw deflate → exactly `size` bytes. Every round of the loop either consumes input or produces output, or
    /// ends, so a stream that stops early ends in an error, not a wait.
    private static func inflate(
        _ input: ArraySlice<UInt8>, size: Int, damaged: (String) -> GripImportError
    ) throws(GripImportError) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw damaged("zlib could not start")
        }
        defer { inflateEnd(&stream) }
        // One byte more than declared, so that data running on past its size is seen.
        var output = [UInt8](repeating: 0, count: size + 1)
        var input = Array(input)
        let result: Int32 = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                while true {
                    let before = (stream.avail_in, stream.avail_out)
                    let code = CZlibInflate.inflate(&stream, Z_NO_FLUSH)
                    if code != Z_OK { return code }
                    if (stream.avail_in, stream.avail_out) == before { return Z_BUF_ERROR }
                }
            }
        }
        let produced = output.count - Int(stream.avail_out)
        switch result {
        case Z_STREAM_END where produced == size:
            output.removeLast()
            return output
        case Z_STREAM_END:
            throw damaged("it inflates to \(produced) bytes, not the \(size) its directory says")
        case Z_BUF_ERROR where produced > size:
            throw damaged("it inflates to more than the \(size) bytes its directory says")
        case Z_BUF_ERROR:
            throw damaged("the compressed data ends early")
        default:
            throw damaged("invalid compressed data")
        }
    }
}

extension [UInt8] {
    /// A little-endian u16 at `offset` (0 past the end: the callers check bounds, this never traps).
    fileprivate func u16(at offset: Int) -> UInt16 {
        guard offset >= 0, offset + 2 <= count else { return 0 }
        return UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
    }

    /// A little-endian u32 at `offset` (0 past the end).
    fileprivate func u32(at offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= count else { return 0 }
        return UInt32(u16(at: offset)) | UInt32(u16(at: offset + 2)) << 16
    }
}
