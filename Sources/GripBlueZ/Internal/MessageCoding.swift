// DBusValue <-> libdbus message iterators, both directions. Containers are handled here; basic values by
// MessageIterator (LibDBus.swift).

extension MessageIterator {
    /// Decodes every remaining argument at this level.
    mutating func decodeAll() -> [DBusValue] {
        var values: [DBusValue] = []
        while argumentType() != .invalid {
            if let value = decodeCurrent() { values.append(value) }
            next()
        }
        return values
    }

    /// Decodes the current argument (does not advance).
    mutating func decodeCurrent() -> DBusValue? {
        switch argumentType() {
        case .invalid:
            return nil
        case .array:
            switch elementType() {
            case .byte:
                return .bytes(byteArray())
            case .dictEntry:
                // "a{kv…}": key is one basic type code, the value the rest.
                let signature = currentSignature()
                let inner = signature.dropFirst(2).dropLast()
                let key = DBusSignature(rawValue: String(inner.prefix(1)))
                let value = DBusSignature(rawValue: String(inner.dropFirst()))
                var entries = recurse()
                var result: [DBusDictionaryEntry] = []
                while entries.argumentType() == .dictEntry {
                    var entry = entries.recurse()
                    let k = entry.decodeCurrent()
                    entry.next()
                    let v = entry.decodeCurrent()
                    if let k, let v { result.append(DBusDictionaryEntry(k, v)) }
                    entries.next()
                }
                return .dictionary(keySignature: key, valueSignature: value, result)
            default:
                let element = DBusSignature(rawValue: String(currentSignature().dropFirst()))
                var elements = recurse()
                return .array(elementSignature: element, elements.decodeAll())
            }
        case .structure:
            var fields = recurse()
            return .structure(fields.decodeAll())
        case .variant:
            var inner = recurse()
            return inner.decodeCurrent().map(DBusValue.variant)
        case .dictEntry:
            return nil  // only inside arrays, handled above
        default:
            return basicValue()
        }
    }

    /// Appends `value`; false when libdbus refused it (bad path, signature or memory).
    mutating func encode(_ value: DBusValue) -> Bool {
        switch value {
        case .bytes(let bytes):
            guard var sub = openContainer(type: .array, signature: "y") else { return false }
            guard sub.append(bytes: bytes) else { abandonContainer(&sub); return false }
            return closeContainer(&sub)
        case .array(let element, let elements):
            guard isSingleCompleteType(element.rawValue),
                  elements.allSatisfy({ $0.signature == element }),
                  var sub = openContainer(type: .array, signature: element.rawValue)
            else { return false }
            for element in elements where !sub.encode(element) {
                abandonContainer(&sub)
                return false
            }
            return closeContainer(&sub)
        case .dictionary(let key, let valueSignature, let entries):
            let entrySignature = "{" + key.rawValue + valueSignature.rawValue + "}"
            guard entries.allSatisfy({ $0.key.signature == key && $0.value.signature == valueSignature }),
                  var sub = openContainer(type: .array, signature: entrySignature)
            else { return false }
            for entry in entries {
                guard var pair = sub.openContainer(type: .dictEntry, signature: nil) else {
                    abandonContainer(&sub)
                    return false
                }
                guard pair.encode(entry.key), pair.encode(entry.value), sub.closeContainer(&pair) else {
                    sub.abandonContainer(&pair)
                    abandonContainer(&sub)
                    return false
                }
            }
            return closeContainer(&sub)
        case .structure(let fields):
            guard !fields.isEmpty, var sub = openContainer(type: .structure, signature: nil) else { return false }
            for field in fields where !sub.encode(field) {
                abandonContainer(&sub)
                return false
            }
            return closeContainer(&sub)
        case .variant(let inner):
            guard var sub = openContainer(type: .variant, signature: inner.signature.rawValue) else { return false }
            guard sub.encode(inner) else { abandonContainer(&sub); return false }
            return closeContainer(&sub)
        default:
            return appendBasic(value)
        }
    }
}

extension OwnedMessage {
    /// The message's arguments, decoded.
    func arguments() -> [DBusValue] {
        guard var iterator = MessageIterator.reading(self) else { return [] }
        return iterator.decodeAll()
    }

    /// Appends `values` as arguments; false when one could not be marshalled.
    func append(_ values: [DBusValue]) -> Bool {
        var iterator = MessageIterator.appending(self)
        return values.allSatisfy { iterator.encode($0) }
    }
}
