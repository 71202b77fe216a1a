/// A message, or an object inside one, that writes its own fields in the order docs/protocol.md gives them.
///
/// The daemon builds every line it sends from these types and every client decodes the same types (`Decodable`,
/// snake-case keys), so a field cannot be spelled one way on one side and another way on the other. The writing
/// stays with ``JSONLine`` rather than `JSONEncoder`: fixed field order, no `null`, and numbers in their shortest
/// round-tripping form (`1.0`, not `1`; a float32 as `22.393`).
package protocol ProtocolFields {
    func write(to fields: inout JSONLine)
}

/// A whole protocol line: a class and its fields.
package protocol ProtocolLine: ProtocolFields {
    /// The line's `class`.
    static var lineClass: String { get }
}

extension ProtocolFields {
    /// The fields as a nested JSON object.
    package var object: String {
        var fields = JSONLine()
        write(to: &fields)
        return fields.object
    }
}

extension ProtocolLine {
    /// The line, newline included.
    package var line: String {
        var fields = JSONLine(class: Self.lineClass)
        write(to: &fields)
        return fields.line
    }
}

extension JSONLine {
    /// Absent values are absent fields (never `null`).
    package mutating func add(_ key: String, _ value: String?) {
        if let value { add(key, value) }
    }

    package mutating func add(_ key: String, _ value: Int?) {
        if let value { add(key, value) }
    }

    package mutating func add(_ key: String, _ value: Int64?) {
        if let value { add(key, Int(value)) }
    }

    package mutating func add(_ key: String, _ value: Bool?) {
        if let value { add(key, value) }
    }

    package mutating func add(_ key: String, _ value: Double?) {
        if let value { add(key, value) }
    }

    package mutating func add(_ key: String, _ value: Float?) {
        if let value { add(key, value) }
    }

    package mutating func add(_ key: String, object: some ProtocolFields) {
        addRaw(key, object.object)
    }

    package mutating func add(_ key: String, objects: [some ProtocolFields]) {
        addRaw(key, "[" + objects.map(\.object).joined(separator: ",") + "]")
    }

    /// Numbers as ``add(_:_:)-(String,Double)`` writes them (`Double.description`; JSON has no non-finite numbers,
    /// and no store or stream value is one).
    package mutating func add(_ key: String, numbers: [Double]) {
        addRaw(key, "[" + numbers.map(\.description).joined(separator: ",") + "]")
    }

    package mutating func add(_ key: String, numbers: [Float]) {
        addRaw(key, "[" + numbers.map(\.description).joined(separator: ",") + "]")
    }
}
