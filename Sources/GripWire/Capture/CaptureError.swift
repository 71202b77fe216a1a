/// Why a capture could not be read, and where.
///
/// The parser emits events as it goes, so everything before the failing record has already been delivered when
/// this is thrown; `description` says how many records that was.
public struct CaptureError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The file does not start with `btsnoop\0`.
        case badMagic
        /// The header's version is not 1 (see `foundVersion`).
        case unsupportedVersion
        /// The header names a datalink griptrack does not read (1003 BCSP, 1004 H5, 2002 simulator, or unknown).
        case unsupportedDatalink(UInt32)
        /// The file ends inside the 16-byte file header (`recordNumber` nil) or a 24-byte record header.
        case truncatedHeader
        /// The file ends inside a record's data.
        case truncatedRecord
        /// A record's included length (the associated value) exceeds its original length (`declaredLength`) or
        /// 64 KiB.
        case impossibleLength(UInt32)
        /// The file could not be opened or read; the text is the operating system's reason.
        case io(String)
    }

    /// What went wrong.
    public var kind: Kind
    /// The 1-based number of the offending record, or nil for the file header and for `io` before any record.
    public var recordNumber: Int?
    /// Byte offset in the file of the offending record (its header) or header field.
    public var byteOffset: Int64
    /// For truncations, the number of bytes the header or record needs (16 or 24 for headers, the included length
    /// for record data); for `impossibleLength`, the record's original length.
    public var declaredLength: Int?
    /// For truncations, how many of those bytes the file actually held.
    public var bytesPresent: Int?
    /// For `unsupportedVersion`, the version found.
    public var foundVersion: UInt32?

    /// Creates an error.
    /// - Parameters:
    ///   - kind: what went wrong.
    ///   - recordNumber: 1-based record number, nil for the file header.
    ///   - byteOffset: offset of the offending record or field.
    ///   - declaredLength: see `declaredLength`.
    ///   - bytesPresent: see `bytesPresent`.
    ///   - foundVersion: see `foundVersion`.
    public init(
        _ kind: Kind, recordNumber: Int? = nil, byteOffset: Int64, declaredLength: Int? = nil,
        bytesPresent: Int? = nil, foundVersion: UInt32? = nil
    ) {
        self.kind = kind
        self.recordNumber = recordNumber
        self.byteOffset = byteOffset
        self.declaredLength = declaredLength
        self.bytesPresent = bytesPresent
        self.foundVersion = foundVersion
    }

    /// One sentence: what happened, where, and how much was replayed before it.
    public var description: String {
        switch kind {
        case .badMagic:
            return "not a btsnoop capture: the file does not start with \"btsnoop\\0\" (byte 0)"
        case .unsupportedVersion:
            let found = foundVersion.map(String.init) ?? "?"
            return "unsupported btsnoop version \(found) at byte \(byteOffset): only version 1 exists"
        case .unsupportedDatalink(let datalink):
            return "unsupported btsnoop datalink \(datalink)\(Self.datalinkName(datalink)) at byte \(byteOffset): "
                + "griptrack reads 1001/1002 (HCI, as Android's snoop log writes) and 2001 (Linux monitor, as "
                + "`btmon -w` writes)"
        case .truncatedHeader:
            let present = bytesPresent ?? 0
            let declared = declaredLength ?? 0
            if let record = recordNumber {
                return "capture is truncated: record \(record) at byte \(byteOffset) has only \(present) of its "
                    + "\(declared) header bytes; \(Self.replayed(record - 1))"
            }
            return "capture is truncated: the file ends after \(present) of the \(declared) btsnoop header bytes"
        case .truncatedRecord:
            let record = recordNumber ?? 0
            return "capture is truncated: record \(record) at byte \(byteOffset) declares \(declaredLength ?? 0) "
                + "bytes but the file ends after \(bytesPresent ?? 0); \(Self.replayed(record - 1))"
        case .impossibleLength(let included):
            let record = recordNumber ?? 0
            let original = declaredLength.map { " (original length \($0))" } ?? ""
            return "impossible record: record \(record) at byte \(byteOffset) declares \(included) included bytes"
                + "\(original); a record holds at most 65536 bytes and never more than its original length; "
                + Self.replayed(record - 1)
        case .io(let reason):
            if let record = recordNumber {
                return "\(reason) (at record \(record), byte \(byteOffset); \(Self.replayed(record - 1)))"
            }
            return reason
        }
    }

    private static func replayed(_ count: Int) -> String {
        count == 1 ? "the 1 record before it was replayed" : "the \(max(0, count)) records before it were replayed"
    }

    private static func datalinkName(_ datalink: UInt32) -> String {
        switch datalink {
        case 1003: " (BCSP)"
        case 1004: " (H5)"
        case 2002: " (BlueZ simulator)"
        default: ""
        }
    }
}
