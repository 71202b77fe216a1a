/// Takes typed values off the front of a fuzz input, like LLVM's FuzzedDataProvider: a harness that needs numbers
/// and strings (a database row, a sequence of frames) reads them from here, and a short input yields zeros and empty
/// values instead of failing.
public struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { position >= bytes.count }

    /// Bytes not yet read.
    public var remainingCount: Int { bytes.count - position }

    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A little-endian integer of `width` bytes (at most 8).
    public mutating func integer(width: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<min(width, 8) { value |= UInt64(byte()) << (8 * UInt64(index)) }
        return value
    }

    public mutating func int64() -> Int64 { Int64(bitPattern: integer(width: 8)) }

    /// Up to `count` bytes (fewer at the end of the input).
    public mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer {
        let end = position + min(max(0, count), remainingCount)
        defer { position = end }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<end])
    }

    /// A length byte, then that many bytes.
    public mutating func shortBytes() -> [UInt8] {
        Array(bytes(Int(byte())))
    }

    /// A length byte, then that many bytes decoded as UTF-8 (invalid sequences repaired).
    public mutating func shortString() -> String {
        String(decoding: shortBytes(), as: UTF8.self)
    }

    /// Everything not yet read.
    public mutating func rest() -> UnsafeRawBufferPointer {
        bytes(remainingCount)
    }
}

/// Cuts `count` bytes into consecutive ranges of pseudo-random lengths (1 to 64, sometimes a single byte, sometimes
/// everything left), derived from `seed`: the same input always splits the same way, so a crash reproduces.
public func chunkRanges(count: Int, seed: UInt64) -> [Range<Int>] {
    var state = seed | 1
    var ranges: [Range<Int>] = []
    var start = 0
    while start < count {
        // xorshift64
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        let length: Int
        switch state % 8 {
        case 0: length = 1
        case 1: length = count - start
        default: length = Int((state >> 8) % 64) + 1
        }
        let end = min(count, start + length)
        ranges.append(start..<end)
        start = end
    }
    return ranges
}

/// FNV-1a of the input: a seed for `chunkRanges` that changes whenever the input does.
public func fnv1a(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash &*= 0x100_0000_01b3
    }
    return hash
}
