/// The GATT layout of a peripheral as learned from the discovery traffic in a capture: services, characteristic
/// declarations and descriptors, keyed by attribute handle.
///
/// Built by `BtsnoopParser` from the responses the device sent (Read By Group Type `0x11`, Read By Type `0x09`,
/// Find Information `0x05`); notifications carry only a value handle, and this maps it back to UUIDs.
///
/// UUIDs are lower-case canonical strings (`0000ffe4-0000-1000-8000-00805f9b34fb`); 16- and 32-bit UUIDs are expanded
/// on the Bluetooth base UUID. When a capture holds discovery of several connections, later entries replace earlier
/// ones with the same handle.
public struct GATTDatabase: Sendable, Equatable {
    /// A primary or secondary service: the handle range it owns and its UUID.
    public struct Service: Sendable, Hashable {
        /// Handle of the service declaration (first handle of the range).
        public var startHandle: UInt16
        /// Last handle of the range (inclusive). Often `0xFFFF` for the last service.
        public var endHandle: UInt16
        /// Lower-case canonical UUID string.
        public var uuid: String

        /// Creates a service entry.
        /// - Parameters:
        ///   - startHandle: the service declaration handle.
        ///   - endHandle: the last handle of the service (inclusive).
        ///   - uuid: any UUID form `GATTDatabase.canonicalUUID(_:)` accepts; stored canonical (invalid text is kept
        ///     lower-cased as given).
        public init(startHandle: UInt16, endHandle: UInt16, uuid: String) {
            self.startHandle = startHandle
            self.endHandle = endHandle
            self.uuid = GATTDatabase.canonicalUUID(uuid) ?? uuid.lowercased()
        }
    }

    /// A characteristic declaration (attribute type `0x2803`).
    public struct Characteristic: Sendable, Hashable {
        /// Handle of the declaration attribute.
        public var declarationHandle: UInt16
        /// Property bits: `0x02` read, `0x04` write without response, `0x08` write, `0x10` notify, `0x20` indicate.
        public var properties: UInt8
        /// Handle of the value attribute; notifications and writes carry this handle.
        public var valueHandle: UInt16
        /// Lower-case canonical UUID string.
        public var uuid: String

        /// Creates a characteristic entry.
        /// - Parameters:
        ///   - declarationHandle: the declaration handle (usually `valueHandle - 1`).
        ///   - properties: the property bits.
        ///   - valueHandle: the value handle.
        ///   - uuid: any UUID form `GATTDatabase.canonicalUUID(_:)` accepts; stored canonical.
        public init(declarationHandle: UInt16, properties: UInt8, valueHandle: UInt16, uuid: String) {
            self.declarationHandle = declarationHandle
            self.properties = properties
            self.valueHandle = valueHandle
            self.uuid = GATTDatabase.canonicalUUID(uuid) ?? uuid.lowercased()
        }
    }

    /// A descriptor (any attribute listed by Find Information other than a declaration), e.g. the CCCD `0x2902`.
    public struct Descriptor: Sendable, Hashable {
        /// Handle of the descriptor.
        public var handle: UInt16
        /// Lower-case canonical UUID string.
        public var uuid: String

        /// Creates a descriptor entry.
        /// - Parameters:
        ///   - handle: the descriptor handle.
        ///   - uuid: any UUID form `GATTDatabase.canonicalUUID(_:)` accepts; stored canonical.
        public init(handle: UInt16, uuid: String) {
            self.handle = handle
            self.uuid = GATTDatabase.canonicalUUID(uuid) ?? uuid.lowercased()
        }
    }

    /// Services sorted by start handle.
    public private(set) var services: [Service] = []
    /// Characteristics sorted by value handle.
    public private(set) var characteristics: [Characteristic] = []
    /// Descriptors sorted by handle.
    public private(set) var descriptors: [Descriptor] = []

    /// An empty database.
    public init() {}

    /// A database holding these entries (sorted; a later entry replaces an earlier one with the same handle).
    /// - Parameters:
    ///   - services: services in any order.
    ///   - characteristics: characteristics in any order.
    ///   - descriptors: descriptors in any order.
    public init(services: [Service], characteristics: [Characteristic] = [], descriptors: [Descriptor] = []) {
        for service in services { add(service) }
        for characteristic in characteristics { add(characteristic) }
        for descriptor in descriptors { add(descriptor) }
    }

    /// Whether discovery taught nothing (no service, characteristic or descriptor).
    public var isEmpty: Bool { services.isEmpty && characteristics.isEmpty && descriptors.isEmpty }

    /// Adds a service, replacing one with the same start handle.
    /// - Parameter service: the service to record.
    public mutating func add(_ service: Service) {
        Self.upsert(service, into: &services, key: \.startHandle)
    }

    /// Adds a characteristic, replacing one with the same value handle.
    /// - Parameter characteristic: the characteristic to record.
    public mutating func add(_ characteristic: Characteristic) {
        Self.upsert(characteristic, into: &characteristics, key: \.valueHandle)
    }

    /// Adds a descriptor, replacing one with the same handle.
    /// - Parameter descriptor: the descriptor to record.
    public mutating func add(_ descriptor: Descriptor) {
        Self.upsert(descriptor, into: &descriptors, key: \.handle)
    }

    /// The UUID of the characteristic whose value lives at this handle.
    /// - Parameter valueHandle: the handle a notification or write carries.
    /// - Returns: the characteristic UUID, or nil when discovery did not cover this handle.
    public func characteristicUUID(forValueHandle valueHandle: UInt16) -> String? {
        characteristics.first { $0.valueHandle == valueHandle }?.uuid
    }

    /// The UUID of the service whose handle range contains this handle.
    /// - Parameter handle: any attribute handle.
    /// - Returns: the innermost (latest-starting) service containing it, or nil.
    public func serviceUUID(containing handle: UInt16) -> String? {
        services.last { $0.startHandle <= handle && handle <= $0.endHandle }?.uuid
    }

    /// The value handle of the first characteristic with this UUID.
    /// - Parameter uuid: any form `canonicalUUID(_:)` accepts, e.g. `7e4e1702-1ea6-40c9-9dcc-13d34ffead57` or `ffe4`.
    /// - Returns: the lowest value handle declared with that UUID, or nil.
    public func valueHandle(forCharacteristic uuid: String) -> UInt16? {
        guard let wanted = Self.canonicalUUID(uuid) else { return nil }
        return characteristics.first { $0.uuid == wanted }?.valueHandle
    }

    /// The Bluetooth base UUID suffix that 16- and 32-bit UUIDs expand on.
    static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    /// Converts a UUID as it appears in an ATT PDU (little-endian) to its canonical string.
    /// - Parameter fromWire: 2, 4 or 16 bytes, least significant first.
    /// - Returns: the lower-case canonical string (short UUIDs expanded on the base UUID), or nil for other lengths.
    public static func uuidString(fromWire bytes: some Collection<UInt8>) -> String? {
        let reversed = Array(bytes.reversed())
        switch reversed.count {
        case 2: return "0000" + hex(reversed) + baseSuffix
        case 4: return hex(reversed) + baseSuffix
        case 16:
            let text = hex(reversed)
            var result = ""
            for (index, character) in text.enumerated() {
                if index == 8 || index == 12 || index == 16 || index == 20 { result.append("-") }
                result.append(character)
            }
            return result
        default: return nil
        }
    }

    /// Converts a UUID string to the bytes an ATT PDU carries (little-endian).
    ///
    /// UUIDs on the Bluetooth base UUID with a 16-bit value come back as 2 bytes, the form discovery responses use;
    /// all others as 16 bytes.
    /// - Parameter uuid: canonical (any case), 4 hex digits (`ffe4`, `0xFFE4`), or 8 hex digits.
    /// - Returns: 2 or 16 bytes, least significant first, or nil when the text is not a UUID.
    public static func wireBytes(uuid: String) -> [UInt8]? {
        guard let canonical = canonicalUUID(uuid) else { return nil }
        let digits = canonical.filter { $0 != "-" }
        guard let big = bytes(fromHex: digits), big.count == 16 else { return nil }
        if canonical.hasPrefix("0000"), canonical.hasSuffix(baseSuffix) {
            return [big[3], big[2]]
        }
        return big.reversed()
    }

    /// Normalises a UUID string to the lower-case canonical 36-character form.
    /// - Parameter uuid: canonical (any case), with or without dashes, or a 16-bit (`ffe4`, `0xffe4`) or 32-bit short
    ///   form.
    /// - Returns: the canonical string, or nil when the text is not a UUID.
    public static func canonicalUUID(_ uuid: String) -> String? {
        var text = uuid.lowercased()
        if text.hasPrefix("0x") { text.removeFirst(2) }
        switch text.count {
        case 4, 8:
            guard text.allSatisfy(\.isHexDigit) else { return nil }
            return String(repeating: "0", count: 8 - text.count) + text + baseSuffix
        case 32:
            guard text.allSatisfy(\.isHexDigit), let bytes = bytes(fromHex: text) else { return nil }
            return uuidString(fromWire: bytes.reversed())
        case 36:
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.map(\.count) == [8, 4, 4, 4, 12], parts.allSatisfy({ $0.allSatisfy(\.isHexDigit) }) else {
                return nil
            }
            return text
        default:
            return nil
        }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    private static func bytes(fromHex text: String) -> [UInt8]? {
        let characters = Array(text)
        guard characters.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(characters.count / 2)
        var index = 0
        while index < characters.count {
            guard let high = characters[index].hexDigitValue, let low = characters[index + 1].hexDigitValue else {
                return nil
            }
            result.append(UInt8(high << 4 | low))
            index += 2
        }
        return result
    }

    private static func upsert<Entry>(_ entry: Entry, into list: inout [Entry], key: KeyPath<Entry, UInt16>) {
        let handle = entry[keyPath: key]
        if let existing = list.firstIndex(where: { $0[keyPath: key] == handle }) {
            list[existing] = entry
        } else {
            let position = list.firstIndex { $0[keyPath: key] > handle } ?? list.endIndex
            list.insert(entry, at: position)
        }
    }
}
