/// Reassembles HCI ACL fragments into L2CAP frames, one partial frame per (adapter, connection, direction).
///
/// A first fragment (PB `00` or `10`) starts a frame and continuations (PB `01`) append to it until it holds the
/// L2CAP length + 4 bytes. A first fragment that arrives while a frame is still partial drops that frame and counts
/// it. Frames are bounded by the 16-bit L2CAP length, so no input can grow the state without limit.
struct ACLReassembler {
    /// One reassembly stream.
    struct Key: Hashable {
        var link: LinkKey
        var direction: LinkDirection
    }

    /// What one fragment completed.
    enum Outcome {
        /// Nothing complete yet (or the fragment was discarded).
        case incomplete
        /// A whole L2CAP frame (header + payload) inside the fragment just given, not copied.
        case inPlace(UnsafeRawBufferPointer)
        /// A whole L2CAP frame assembled from several fragments.
        case assembled([UInt8])
    }

    private var partial: [Key: [UInt8]] = [:]
    /// Partial frames discarded because a new first fragment (or a reconnection) arrived before they completed.
    private(set) var droppedPartialPDUs = 0
    /// Fragments that could not be used: a continuation with nothing to continue, or a reserved PB value.
    private(set) var orphanFragments = 0

    /// Feeds the data of one ACL packet (the bytes after the 4-byte ACL header).
    /// - Parameters:
    ///   - data: the fragment.
    ///   - packetBoundary: the PB flag (0…3).
    ///   - key: the stream this fragment belongs to.
    /// - Returns: the L2CAP frame this fragment completed, if any.
    mutating func accept(_ data: UnsafeRawBufferPointer, packetBoundary: UInt8, key: Key) -> Outcome {
        switch packetBoundary {
        case 0b00, 0b10:
            // Almost every notification is one unfragmented first fragment with nothing partial: skip the hashing.
            if !partial.isEmpty, partial.removeValue(forKey: key) != nil { droppedPartialPDUs += 1 }
            if let needed = Self.frameLength(data), data.count >= needed {
                return .inPlace(UnsafeRawBufferPointer(rebasing: data[0..<needed]))
            }
            partial[key] = Array(data)
            return .incomplete
        case 0b01:
            guard var buffer = partial.removeValue(forKey: key) else {
                orphanFragments += 1
                return .incomplete
            }
            buffer.append(contentsOf: data)
            guard let needed = buffer.withUnsafeBytes({ Self.frameLength($0) }), buffer.count >= needed else {
                partial[key] = buffer
                return .incomplete
            }
            if buffer.count > needed { buffer.removeSubrange(needed...) }
            return .assembled(buffer)
        default:
            orphanFragments += 1
            return .incomplete
        }
    }

    /// Forgets partial frames of a connection (both directions), e.g. on connect or disconnect; counts them dropped.
    mutating func reset(link: LinkKey) {
        for direction in [LinkDirection.sent, .received] {
            if partial.removeValue(forKey: Key(link: link, direction: direction)) != nil { droppedPartialPDUs += 1 }
        }
    }

    /// Forgets partial frames of every connection of an adapter; counts them dropped.
    mutating func reset(adapter: UInt16) {
        let stale = partial.keys.filter { $0.link.adapter == adapter }
        for key in stale { partial[key] = nil }
        droppedPartialPDUs += stale.count
    }

    /// Counts the frames still partial (e.g. at the end of the capture) as dropped and forgets them.
    mutating func dropAllPartial() {
        droppedPartialPDUs += partial.count
        partial.removeAll()
    }

    /// L2CAP basic header length + 4, or nil when fewer than 4 bytes are known.
    private static func frameLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        bytes.uint16LE(at: 0).map { Int($0) + 4 }
    }
}
