/// A D-Bus object path such as `/org/bluez/hci0/dev_F0_0D_CA_FE_12_34`.
public struct ObjectPath: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral {
    /// The path text.
    public var rawValue: String

    /// Wraps `rawValue` without validation (libdbus rejects an invalid path when the message is built).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a literal path.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The path text.
    public var description: String { rawValue }

    /// Orders paths by their text.
    public static func < (lhs: ObjectPath, rhs: ObjectPath) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether `self` is `ancestor` or lies below it.
    public func isDescendant(of ancestor: ObjectPath) -> Bool {
        rawValue == ancestor.rawValue || rawValue.hasPrefix(ancestor.rawValue == "/" ? "/" : ancestor.rawValue + "/")
    }
}

/// A D-Bus type signature such as `a{sv}`.
public struct DBusSignature: RawRepresentable, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral {
    /// The signature text.
    public var rawValue: String

    /// Wraps `rawValue` without validation.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a literal signature.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The signature text.
    public var description: String { rawValue }
}

/// One entry of a D-Bus dictionary (`a{..}`), kept in wire order.
public struct DBusDictionaryEntry: Hashable, Sendable {
    /// The key (a basic type).
    public var key: DBusValue
    /// The value.
    public var value: DBusValue

    /// Makes an entry.
    public init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}

/// A typed D-Bus value, marshalled both ways by libdbus.
///
/// `ay` always decodes as `.bytes`; `a{kv}` always decodes as `.dictionary`; other arrays as `.array` with their
/// element signature, so empty arrays keep their type.
///
/// - Important: A decoded `.unixFD` is a new descriptor that the receiver owns and must close; an encoded one is
///   duplicated by libdbus and stays owned by the caller.
public enum DBusValue: Hashable, Sendable {
    /// `y`.
    case byte(UInt8)
    /// `b`.
    case boolean(Bool)
    /// `n`.
    case int16(Int16)
    /// `q`.
    case uint16(UInt16)
    /// `i`.
    case int32(Int32)
    /// `u`.
    case uint32(UInt32)
    /// `x`.
    case int64(Int64)
    /// `t`.
    case uint64(UInt64)
    /// `d`.
    case double(Double)
    /// `s`.
    case string(String)
    /// `o`.
    case objectPath(ObjectPath)
    /// `g`.
    case signature(DBusSignature)
    /// `h`: a file descriptor (see the ownership note above).
    case unixFD(Int32)
    /// `ay`.
    case bytes([UInt8])
    /// An array of `elementSignature` values (not `y`, not dict entries).
    case array(elementSignature: DBusSignature, [DBusValue])
    /// `a{key value}`.
    case dictionary(keySignature: DBusSignature, valueSignature: DBusSignature, [DBusDictionaryEntry])
    /// A struct `( … )`.
    case structure([DBusValue])
    /// `v`.
    indirect case variant(DBusValue)

    /// The value's complete D-Bus type signature.
    public var signature: DBusSignature {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .bytes: "ay"
        case .array(let element, _): DBusSignature(rawValue: "a" + element.rawValue)
        case .dictionary(let key, let value, _): DBusSignature(rawValue: "a{" + key.rawValue + value.rawValue + "}")
        case .structure(let fields): DBusSignature(rawValue: "(" + fields.map(\.signature.rawValue).joined() + ")")
        case .variant: "v"
        }
    }

    /// An `a{sv}` dictionary (BlueZ's property and option maps), keys sorted for a stable wire order.
    public static func properties(_ values: [String: DBusValue]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "v",
            values.sorted { $0.key < $1.key }.map { DBusDictionaryEntry(.string($0.key), .variant($0.value)) }
        )
    }

    /// An `as` array.
    public static func strings(_ values: [String]) -> DBusValue {
        .array(elementSignature: "s", values.map(DBusValue.string))
    }

    /// The value with every variant layer removed.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// The string of a `.string`, `.objectPath` or `.signature` (through variants).
    public var stringValue: String? {
        switch unwrapped {
        case .string(let value): value
        case .objectPath(let value): value.rawValue
        case .signature(let value): value.rawValue
        default: nil
        }
    }

    /// The object path of an `.objectPath` (through variants).
    public var objectPathValue: ObjectPath? {
        if case .objectPath(let path) = unwrapped { return path }
        return nil
    }

    /// The boolean of a `.boolean` (through variants).
    public var boolValue: Bool? {
        if case .boolean(let value) = unwrapped { return value }
        return nil
    }

    /// Any integer type widened to `Int64` (through variants).
    public var integerValue: Int64? {
        switch unwrapped {
        case .byte(let v): Int64(v)
        case .int16(let v): Int64(v)
        case .uint16(let v): Int64(v)
        case .int32(let v): Int64(v)
        case .uint32(let v): Int64(v)
        case .int64(let v): v
        case .uint64(let v): Int64(exactly: v)
        default: nil
        }
    }

    /// The bytes of `ay` (through variants).
    public var bytesValue: [UInt8]? {
        if case .bytes(let bytes) = unwrapped { return bytes }
        return nil
    }

    /// The strings of `as` (through variants).
    public var stringsValue: [String]? {
        guard case .array(_, let elements) = unwrapped else { return nil }
        return elements.compactMap(\.stringValue)
    }

    /// The map of a dictionary with string keys (`a{sv}`, `a{s…}`), variants kept in values (through variants).
    public var propertiesValue: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = unwrapped else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.stringValue else { return nil }
            result[key] = entry.value
        }
        return result
    }
}
