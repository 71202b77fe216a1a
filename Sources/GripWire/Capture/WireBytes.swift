/// Bounds-checked reads from untrusted capture bytes: every accessor returns nil instead of trapping.
extension UnsafeRawBufferPointer {
    /// The byte at `index`, or nil when out of range.
    @inline(__always)
    func byte(at index: Int) -> UInt8? {
        index >= 0 && index < count ? self[index] : nil
    }

    /// The little-endian u16 at `index`, or nil when fewer than 2 bytes remain.
    @inline(__always)
    func uint16LE(at index: Int) -> UInt16? {
        guard index >= 0, index <= count - 2 else { return nil }
        return UInt16(self[index]) | UInt16(self[index + 1]) << 8
    }

    /// The big-endian u32 at `index`, or nil when fewer than 4 bytes remain.
    @inline(__always)
    func uint32BE(at index: Int) -> UInt32? {
        guard index >= 0, index <= count - 4 else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 { value = value << 8 | UInt32(self[index + offset]) }
        return value
    }

    /// The big-endian u64 at `index`, or nil when fewer than 8 bytes remain.
    @inline(__always)
    func uint64BE(at index: Int) -> UInt64? {
        guard index >= 0, index <= count - 8 else { return nil }
        var value: UInt64 = 0
        for offset in 0..<8 { value = value << 8 | UInt64(self[index + offset]) }
        return value
    }

    /// `length` bytes starting at `start`, or nil when the range does not fit.
    @inline(__always)
    func bytes(from start: Int, count length: Int) -> UnsafeRawBufferPointer? {
        guard start >= 0, length >= 0, start <= count, length <= count - start else { return nil }
        return UnsafeRawBufferPointer(rebasing: self[start..<(start + length)])
    }

    /// The bytes from `start` to the end (empty when `start` is past the end).
    @inline(__always)
    func bytes(from start: Int) -> UnsafeRawBufferPointer {
        let clamped = Swift.min(Swift.max(start, 0), count)
        return UnsafeRawBufferPointer(rebasing: self[clamped...])
    }
}

/// Conversions between btsnoop timestamps and Unix microseconds.
enum BtsnoopTime {
    /// Microseconds from 0000-01-01 to 1970-01-01 (Wireshark's `KUnixTimeBase`).
    static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    /// Unix µs for a btsnoop timestamp (wrapping, so a garbage timestamp never traps).
    static func unixMicros(fromBtsnoop timestamp: UInt64) -> Int64 {
        Int64(bitPattern: timestamp) &- unixEpochOffset
    }

    /// The btsnoop timestamp for Unix µs (wrapping).
    static func btsnoop(fromUnixMicros micros: Int64) -> UInt64 {
        UInt64(bitPattern: micros &+ unixEpochOffset)
    }
}
