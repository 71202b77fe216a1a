/// Builders for the ATT PDUs (opcode first, multi-byte fields little-endian) that captures and the simulator need.
///
/// Each returns the ATT PDU only; `BtsnoopWriter.appendATT` wraps it in L2CAP and HCI ACL. Builders never trap: an
/// entry that cannot be encoded (an invalid UUID, or one whose size differs from the first entry's, which a single
/// ATT response cannot mix) is left out.
public enum ATTPDU {
    /// ATT opcodes used here (Bluetooth Core Vol 3 Part F §3.4.8, `att-types.h`).
    public enum Opcode: UInt8, Sendable {
        case errorResponse = 0x01
        case exchangeMTURequest = 0x02, exchangeMTUResponse = 0x03
        case findInformationRequest = 0x04, findInformationResponse = 0x05
        case readByTypeRequest = 0x08, readByTypeResponse = 0x09
        case readByGroupTypeRequest = 0x10, readByGroupTypeResponse = 0x11
        case writeRequest = 0x12, writeResponse = 0x13
        case handleValueNotification = 0x1B, handleValueIndication = 0x1D, handleValueConfirmation = 0x1E
        case multipleHandleValueNotification = 0x23
        case writeCommand = 0x52
    }

    /// The default LE ATT MTU.
    public static let defaultMTU = 23

    /// Exchange MTU Request `02 | client MTU`.
    /// - Parameter mtu: the client's receive MTU.
    /// - Returns: the PDU.
    public static func exchangeMTURequest(mtu: UInt16) -> [UInt8] { [Opcode.exchangeMTURequest.rawValue] + le(mtu) }

    /// Exchange MTU Response `03 | server MTU`.
    /// - Parameter mtu: the server's receive MTU.
    /// - Returns: the PDU.
    public static func exchangeMTUResponse(mtu: UInt16) -> [UInt8] { [Opcode.exchangeMTUResponse.rawValue] + le(mtu) }

    /// Handle Value Notification `1B | handle | value`.
    /// - Parameters:
    ///   - handle: the characteristic value handle.
    ///   - value: the characteristic value.
    /// - Returns: the PDU.
    public static func notification(handle: UInt16, value: [UInt8]) -> [UInt8] {
        [Opcode.handleValueNotification.rawValue] + le(handle) + value
    }

    /// Handle Value Indication `1D | handle | value`.
    /// - Parameters:
    ///   - handle: the characteristic value handle.
    ///   - value: the characteristic value.
    /// - Returns: the PDU.
    public static func indication(handle: UInt16, value: [UInt8]) -> [UInt8] {
        [Opcode.handleValueIndication.rawValue] + le(handle) + value
    }

    /// Multiple Handle Value Notification `23 | { handle, length u16, value }*` (Bluetooth 5.2, EATT).
    /// - Parameter entries: the values, in order; a value longer than 65535 bytes is left out.
    /// - Returns: the PDU.
    public static func multipleHandleValueNotification(_ entries: [(handle: UInt16, value: [UInt8])]) -> [UInt8] {
        var pdu = [Opcode.multipleHandleValueNotification.rawValue]
        for entry in entries where entry.value.count <= Int(UInt16.max) {
            pdu += le(entry.handle) + le(UInt16(entry.value.count)) + entry.value
        }
        return pdu
    }

    /// Write Request `12 | handle | value` (answered by a Write Response `13`).
    /// - Parameters:
    ///   - handle: the value (or descriptor) handle.
    ///   - value: the bytes to write, e.g. `[0x01, 0x00]` to a CCCD to enable notifications.
    /// - Returns: the PDU.
    public static func writeRequest(handle: UInt16, value: [UInt8]) -> [UInt8] {
        [Opcode.writeRequest.rawValue] + le(handle) + value
    }

    /// Write Response `13`.
    /// - Returns: the PDU.
    public static func writeResponse() -> [UInt8] { [Opcode.writeResponse.rawValue] }

    /// Write Command `52 | handle | value` (write without response).
    /// - Parameters:
    ///   - handle: the value handle.
    ///   - value: the bytes to write.
    /// - Returns: the PDU.
    public static func writeCommand(handle: UInt16, value: [UInt8]) -> [UInt8] {
        [Opcode.writeCommand.rawValue] + le(handle) + value
    }

    /// Error Response `01 | request opcode | handle | error code`.
    /// - Parameters:
    ///   - request: the opcode of the request that failed.
    ///   - handle: the handle the error is about (the start handle, for discovery).
    ///   - code: the ATT error code; `0x0A` Attribute Not Found ends each discovery loop.
    /// - Returns: the PDU.
    public static func errorResponse(request: UInt8, handle: UInt16, code: UInt8 = 0x0A) -> [UInt8] {
        [Opcode.errorResponse.rawValue, request] + le(handle) + [code]
    }

    /// Read By Group Type Request `10 | start | end | group type` (primary services: `0x2800`).
    /// - Parameters:
    ///   - start: first handle to search.
    ///   - end: last handle to search.
    ///   - groupType: 16-bit attribute type of the group.
    /// - Returns: the PDU.
    public static func readByGroupTypeRequest(start: UInt16, end: UInt16, groupType: UInt16 = 0x2800) -> [UInt8] {
        [Opcode.readByGroupTypeRequest.rawValue] + le(start) + le(end) + le(groupType)
    }

    /// Read By Group Type Response `11 | len | { start, end, UUID }*` listing services.
    /// - Parameter services: services whose UUIDs all have the first one's size (2 or 16 bytes on the wire).
    /// - Returns: the PDU (`len` 6 or 20).
    public static func readByGroupTypeResponse(services: [GATTDatabase.Service]) -> [UInt8] {
        let entries = services.compactMap { service in
            GATTDatabase.wireBytes(uuid: service.uuid).map { le(service.startHandle) + le(service.endHandle) + $0 }
        }
        return response(Opcode.readByGroupTypeResponse.rawValue, entries: entries)
    }

    /// Read By Type Request `08 | start | end | type` (characteristic declarations: `0x2803`).
    /// - Parameters:
    ///   - start: first handle to search.
    ///   - end: last handle to search.
    ///   - type: 16-bit attribute type.
    /// - Returns: the PDU.
    public static func readByTypeRequest(start: UInt16, end: UInt16, type: UInt16 = 0x2803) -> [UInt8] {
        [Opcode.readByTypeRequest.rawValue] + le(start) + le(end) + le(type)
    }

    /// Read By Type Response `09 | len | { declaration, properties, value handle, UUID }*` listing characteristics.
    /// - Parameter characteristics: characteristics whose UUIDs all have the first one's size.
    /// - Returns: the PDU (`len` 7 or 21).
    public static func readByTypeResponse(characteristics: [GATTDatabase.Characteristic]) -> [UInt8] {
        let entries = characteristics.compactMap { characteristic in
            GATTDatabase.wireBytes(uuid: characteristic.uuid).map {
                le(characteristic.declarationHandle) + [characteristic.properties] + le(characteristic.valueHandle) + $0
            }
        }
        return response(Opcode.readByTypeResponse.rawValue, entries: entries)
    }

    /// Find Information Request `04 | start | end`.
    /// - Parameters:
    ///   - start: first handle to list.
    ///   - end: last handle to list.
    /// - Returns: the PDU.
    public static func findInformationRequest(start: UInt16, end: UInt16) -> [UInt8] {
        [Opcode.findInformationRequest.rawValue] + le(start) + le(end)
    }

    /// Find Information Response `05 | format | { handle, UUID }*` listing descriptors.
    /// - Parameter descriptors: descriptors whose UUIDs all have the first one's size.
    /// - Returns: the PDU (format 1 for 16-bit UUIDs, 2 for 128-bit).
    public static func findInformationResponse(descriptors: [GATTDatabase.Descriptor]) -> [UInt8] {
        let entries = descriptors.compactMap { descriptor in
            GATTDatabase.wireBytes(uuid: descriptor.uuid).map { le(descriptor.handle) + $0 }
        }
        let uuidLength = (entries.first?.count ?? 4) - 2
        return [Opcode.findInformationResponse.rawValue, uuidLength == 2 ? 1 : 2]
            + entries.filter { $0.count == uuidLength + 2 }.joined()
    }

    /// The complete client/server conversation a GATT client (like BlueZ) has when it discovers this database with
    /// this MTU: primary services, then the characteristics of each service, then the descriptors of each
    /// characteristic, each loop ended by an Attribute Not Found error.
    ///
    /// Replaying it through `BtsnoopParser` rebuilds `database`.
    /// - Parameters:
    ///   - database: the peripheral's layout.
    ///   - mtu: the ATT MTU; responses carry as many entries as fit in `mtu - 2` bytes.
    /// - Returns: the PDUs in order, each with its direction (requests `.sent`, responses `.received`).
    public static func discoveryExchange(
        of database: GATTDatabase, mtu: Int = defaultMTU
    ) -> [(direction: LinkDirection, pdu: [UInt8])] {
        var exchange: [(direction: LinkDirection, pdu: [UInt8])] = []
        let room = max(mtu, defaultMTU) - 2

        // Primary services.
        var cursor: UInt16 = 1
        while true {
            exchange.append((.sent, readByGroupTypeRequest(start: cursor, end: 0xFFFF)))
            let batch = sameSizeBatch(
                database.services.filter { $0.startHandle >= cursor }, uuid: \.uuid, entryOverhead: 4, room: room)
            guard let last = batch.last else {
                exchange.append((.received, errorResponse(request: 0x10, handle: cursor)))
                break
            }
            exchange.append((.received, readByGroupTypeResponse(services: batch)))
            guard last.endHandle < 0xFFFF, last.endHandle >= cursor else { break }
            cursor = last.endHandle + 1
        }

        // Characteristics, per service.
        for service in database.services {
            var cursor = service.startHandle
            while cursor <= service.endHandle {
                exchange.append((.sent, readByTypeRequest(start: cursor, end: service.endHandle)))
                let inRange = database.characteristics.filter {
                    $0.declarationHandle >= cursor && $0.declarationHandle <= service.endHandle
                }.sorted { $0.declarationHandle < $1.declarationHandle }
                let batch = sameSizeBatch(inRange, uuid: \.uuid, entryOverhead: 5, room: room)
                guard let last = batch.last else {
                    exchange.append((.received, errorResponse(request: 0x08, handle: cursor)))
                    break
                }
                exchange.append((.received, readByTypeResponse(characteristics: batch)))
                guard last.declarationHandle < service.endHandle else { break }
                cursor = last.declarationHandle + 1
            }
        }

        // Descriptors, per characteristic: the handles after its value up to the next declaration or service end.
        for service in database.services {
            let declarations = database.characteristics
                .filter { $0.declarationHandle >= service.startHandle && $0.declarationHandle <= service.endHandle }
                .sorted { $0.declarationHandle < $1.declarationHandle }
            for (index, characteristic) in declarations.enumerated() {
                guard characteristic.valueHandle < UInt16.max else { continue }
                let end = index + 1 < declarations.count
                    ? max(declarations[index + 1].declarationHandle, 1) - 1 : service.endHandle
                var cursor = characteristic.valueHandle + 1
                while cursor <= end {
                    exchange.append((.sent, findInformationRequest(start: cursor, end: end)))
                    let inRange = database.descriptors.filter { $0.handle >= cursor && $0.handle <= end }
                    let batch = sameSizeBatch(inRange, uuid: \.uuid, entryOverhead: 2, room: room)
                    guard let last = batch.last else {
                        exchange.append((.received, errorResponse(request: 0x04, handle: cursor)))
                        break
                    }
                    exchange.append((.received, findInformationResponse(descriptors: batch)))
                    guard last.handle < end else { break }
                    cursor = last.handle + 1
                }
            }
        }
        return exchange
    }

    /// The leading entries that share the first entry's UUID size and fit in one response.
    private static func sameSizeBatch<Entry>(
        _ entries: [Entry], uuid: KeyPath<Entry, String>, entryOverhead: Int, room: Int
    ) -> [Entry] {
        guard let first = entries.first, let size = GATTDatabase.wireBytes(uuid: first[keyPath: uuid])?.count else {
            return []
        }
        let entryLength = entryOverhead + size
        let fitting = max(1, (room - 1) / entryLength)  // one byte for the length/format field
        var batch: [Entry] = []
        for entry in entries {
            guard batch.count < fitting, GATTDatabase.wireBytes(uuid: entry[keyPath: uuid])?.count == size else {
                break
            }
            batch.append(entry)
        }
        return batch
    }

    /// `opcode | len | entries…`, keeping only entries as long as the first.
    private static func response(_ opcode: UInt8, entries: [[UInt8]]) -> [UInt8] {
        guard let length = entries.first?.count, length <= Int(UInt8.max) else { return [opcode, 0] }
        return [opcode, UInt8(length)] + entries.filter { $0.count == length }.joined()
    }

    /// Little-endian bytes of a u16.
    static func le(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
