/// An incremental (push) btsnoop parser: bytes in, `CaptureEvent`s out, in file order.
///
/// Feed it any split of the file (whole, in chunks, byte by byte); the events and errors are the same. It keeps at
/// most one record (≤ 64 KiB + 24 bytes) and one partial L2CAP frame per link, so a 500 MB capture streams in
/// constant memory.
///
/// Layers: btsnoop records (datalinks 1001, 1002 and 2001) → HCI ACL reassembly per (adapter, connection,
/// direction) → L2CAP channel 4 → ATT. HCI events give connection lifetime. Discovery responses build `gatt`.
///
/// ```swift
/// var parser = BtsnoopParser()
/// try parser.feed(chunk) { event in … }   // as often as needed (feedBorrowing: the same, without copying values)
/// try parser.finish()                       // throws if the file ended inside a header or record
/// ```
///
/// - Important: Never traps on any input. Malformed packets inside well-formed records are skipped and counted
///   (`malformedPackets`, `droppedPartialPDUs`, `orphanFragments`); only a broken file structure throws.
public struct BtsnoopParser: Sendable {
    /// The file's datalink once the header has been read. Datalink 1001 files report `.hciUART`.
    public private(set) var datalink: BtsnoopDatalink?
    /// The exact datalink number from the header (1001, 1002 or 2001) once read.
    public private(set) var datalinkCode: UInt32?
    /// Complete records processed so far.
    public private(set) var recordsRead = 0
    /// Bytes of the file processed so far: the header plus every complete record.
    public private(set) var bytesConsumed: Int64 = 0
    /// What the captured GATT discovery taught so far.
    public private(set) var gatt = GATTDatabase()
    /// Host time of the first record, Unix µs; the origin of Wireshark's `frame.time_relative`.
    public private(set) var firstRecordMicros: Int64?
    /// HCI packets inside records that were too short or inconsistent to decode (skipped).
    public private(set) var malformedPackets = 0

    /// Partial L2CAP frames dropped: a new first fragment, a reconnection or the end of the capture arrived before
    /// their last continuation.
    public var droppedPartialPDUs: Int { reassembler.droppedPartialPDUs }
    /// ACL continuation fragments with no frame to continue (or with a reserved PB flag), skipped.
    public var orphanFragments: Int { reassembler.orphanFragments }

    private enum Stage {
        case fileHeader
        case recordHeader
        case recordData(RecordHeader)
    }

    private struct RecordHeader {
        var originalLength: UInt32
        var includedLength: UInt32
        var flags: UInt32
        var timestamp: UInt64
        /// Byte offset of the record header in the file.
        var offset: Int64
        var number: Int
    }

    private enum Encapsulation {
        case unencapsulated, uart, monitor
    }

    /// What a Read By Type request asked for, to tell characteristic declarations from other reads.
    private enum ReadByTypeRequest {
        case characteristicDeclarations
        case other
    }

    private static let fileHeaderLength = 16
    private static let recordHeaderLength = 24
    private static let maximumIncludedLength: UInt32 = 65536
    private static let magic: [UInt8] = Array("btsnoop".utf8) + [0]

    private var stage = Stage.fileHeader
    private var encapsulation = Encapsulation.uart
    /// Bytes of the current header or record when it spans `feed` calls.
    private var staging: [UInt8] = []
    private var failure: CaptureError?
    private var reassembler = ACLReassembler()
    private var pendingMTURequests: [LinkKey: (mtu: UInt16, direction: LinkDirection)] = [:]
    private var pendingReadByType: [LinkKey: ReadByTypeRequest] = [:]

    /// A parser waiting for the 16-byte file header.
    public init() {}

    /// Parses the next bytes of the capture.
    /// - Parameters:
    ///   - bytes: the next bytes of the file, any length (including 0).
    ///   - emit: called for each event completed by these bytes, in file order, before `feed` returns.
    /// - Throws: `CaptureError` when the header is not a supported btsnoop header or a record declares an
    ///   impossible length. The parser then stays failed: later calls throw the same error. Events of earlier
    ///   records have been emitted.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: (CaptureEvent) -> Void) throws(CaptureError) {
        try feedBorrowing(bytes) { emit($0.event) }
    }

    /// Parses the next bytes of the capture; see `feed(_:emit:)`.
    /// - Parameters:
    ///   - bytes: the next bytes of the file.
    ///   - emit: called for each completed event, in file order.
    /// - Throws: `CaptureError`, as `feed(_:emit:)`.
    public mutating func feed(_ bytes: [UInt8], emit: (CaptureEvent) -> Void) throws(CaptureError) {
        // Array.withUnsafeBytes rethrows untyped errors, so carry the typed error out in a Result.
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(CaptureError) in try feed(buffer, emit: emit) }
        }
        try result.get()
    }

    /// Parses the next bytes of the capture as `feed(_:emit:)` does, but lends each event's value bytes instead of
    /// copying them into an array: the same events, errors and counters, without an allocation per notification.
    ///
    /// For readers that copy the value elsewhere anyway (the replay copies it into a ring slot).
    /// - Parameters:
    ///   - bytes: the next bytes of the file, any length (including 0).
    ///   - emit: called for each event completed by these bytes, in file order, before `feed` returns. The
    ///     event's value points into `bytes` or into the parser's own buffers and is valid only during the call.
    /// - Throws: `CaptureError`, as `feed(_:emit:)`.
    public mutating func feedBorrowing(
        _ bytes: UnsafeRawBufferPointer, emit: (BorrowedCaptureEvent) -> Void
    ) throws(CaptureError) {
        if let failure { throw failure }
        do {
            try consume(bytes, emit: emit)
        } catch {
            failure = error
            throw error
        }
    }

    /// Declares the end of the file.
    ///
    /// Partial L2CAP frames still open are counted in `droppedPartialPDUs`.
    /// - Throws: `CaptureError` `.truncatedHeader` or `.truncatedRecord` when the file ended inside the file header
    ///   (an empty file included), a record header or a record's data; or the error `feed` already threw.
    public mutating func finish() throws(CaptureError) {
        if let failure { throw failure }
        let error: CaptureError?
        switch stage {
        case .fileHeader:
            error = CaptureError(
                .truncatedHeader, byteOffset: 0, declaredLength: Self.fileHeaderLength, bytesPresent: staging.count)
        case .recordHeader where staging.isEmpty:
            error = nil
        case .recordHeader:
            error = CaptureError(
                .truncatedHeader, recordNumber: recordsRead + 1, byteOffset: bytesConsumed,
                declaredLength: Self.recordHeaderLength, bytesPresent: staging.count)
        case .recordData(let header):
            error = CaptureError(
                .truncatedRecord, recordNumber: header.number, byteOffset: header.offset,
                declaredLength: Int(header.includedLength), bytesPresent: staging.count)
        }
        reassembler.dropAllPartial()
        if let error {
            failure = error
            throw error
        }
    }

    // MARK: - Framing

    /// Bytes the current stage needs in total.
    private var unitLength: Int {
        switch stage {
        case .fileHeader: Self.fileHeaderLength
        case .recordHeader: Self.recordHeaderLength
        case .recordData(let header): Int(header.includedLength)
        }
    }

    private mutating func consume(
        _ bytes: UnsafeRawBufferPointer, emit: (BorrowedCaptureEvent) -> Void
    ) throws(CaptureError) {
        var position = 0
        while position < bytes.count {
            let length = unitLength
            let available = bytes.count - position
            if staging.isEmpty, available >= length {
                // The whole unit is in this buffer: parse it in place, without copying.
                let unit = UnsafeRawBufferPointer(rebasing: bytes[position..<(position + length)])
                position += length
                try process(unit, emit: emit)
            } else {
                let take = min(length - staging.count, available)
                staging.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[position..<(position + take)]))
                position += take
                guard staging.count == length else { continue }
                var unit: [UInt8] = []
                swap(&unit, &staging)
                let result = unit.withUnsafeBytes { buffer in
                    Result { () throws(CaptureError) in try process(buffer, emit: emit) }
                }
                unit.removeAll(keepingCapacity: true)
                swap(&unit, &staging)
                try result.get()
            }
        }
    }

    /// Handles one complete unit (file header, record header or record data).
    private mutating func process(
        _ unit: UnsafeRawBufferPointer, emit: (BorrowedCaptureEvent) -> Void
    ) throws(CaptureError) {
        switch stage {
        case .fileHeader:
            try readFileHeader(unit)
        case .recordHeader:
            let header = try readRecordHeader(unit)
            stage = .recordData(header)
            if header.includedLength == 0 {
                handleRecord(header, data: UnsafeRawBufferPointer(start: nil, count: 0), emit: emit)
            }
        case .recordData(let header):
            handleRecord(header, data: unit, emit: emit)
        }
    }

    private mutating func readFileHeader(_ unit: UnsafeRawBufferPointer) throws(CaptureError) {
        guard unit.bytes(from: 0, count: 8).map({ $0.elementsEqual(Self.magic) }) == true else {
            throw CaptureError(.badMagic, byteOffset: 0)
        }
        let version = unit.uint32BE(at: 8) ?? 0
        guard version == 1 else { throw CaptureError(.unsupportedVersion, byteOffset: 8, foundVersion: version) }
        let code = unit.uint32BE(at: 12) ?? 0
        switch code {
        case 1001:
            encapsulation = .unencapsulated
            datalink = .hciUART
        case 1002:
            encapsulation = .uart
            datalink = .hciUART
        case 2001:
            encapsulation = .monitor
            datalink = .linuxMonitor
        default:
            throw CaptureError(.unsupportedDatalink(code), byteOffset: 12)
        }
        datalinkCode = code
        bytesConsumed = Int64(Self.fileHeaderLength)
        stage = .recordHeader
    }

    private func readRecordHeader(_ unit: UnsafeRawBufferPointer) throws(CaptureError) -> RecordHeader {
        let header = RecordHeader(
            originalLength: unit.uint32BE(at: 0) ?? 0,
            includedLength: unit.uint32BE(at: 4) ?? 0,
            flags: unit.uint32BE(at: 8) ?? 0,
            timestamp: unit.uint64BE(at: 16) ?? 0,
            offset: bytesConsumed,
            number: recordsRead + 1)
        guard header.includedLength <= header.originalLength, header.includedLength <= Self.maximumIncludedLength
        else {
            throw CaptureError(
                .impossibleLength(header.includedLength), recordNumber: header.number, byteOffset: header.offset,
                declaredLength: Int(header.originalLength))
        }
        return header
    }

    // MARK: - Records → HCI

    private mutating func handleRecord(
        _ header: RecordHeader, data: UnsafeRawBufferPointer, emit: (BorrowedCaptureEvent) -> Void
    ) {
        recordsRead = header.number
        bytesConsumed = header.offset + Int64(Self.recordHeaderLength) + Int64(header.includedLength)
        stage = .recordHeader
        let micros = BtsnoopTime.unixMicros(fromBtsnoop: header.timestamp)
        if firstRecordMicros == nil { firstRecordMicros = micros }

        let received = header.flags & 1 == 1
        switch encapsulation {
        case .uart:
            guard let type = data.byte(at: 0) else {
                malformedPackets += 1
                return
            }
            let packet = data.bytes(from: 1)
            let direction: LinkDirection = received ? .received : .sent
            switch type {
            case 0x02: handleACL(packet, adapter: 0, direction: direction, micros: micros, emit: emit)
            case 0x04: handleEvent(packet, adapter: 0, micros: micros, emit: emit)
            default: break  // commands, SCO, ISO
            }
        case .unencapsulated:
            if header.flags & 2 == 0 {
                handleACL(data, adapter: 0, direction: received ? .received : .sent, micros: micros, emit: emit)
            } else if received {
                handleEvent(data, adapter: 0, micros: micros, emit: emit)
            }
        case .monitor:
            let adapter = UInt16(truncatingIfNeeded: header.flags >> 16)
            switch header.flags & 0xFFFF {
            case 0, 1: forget(adapter: adapter)  // NEW_INDEX, DEL_INDEX: the adapter (re)starts or goes away
            case 3: handleEvent(data, adapter: adapter, micros: micros, emit: emit)
            case 4: handleACL(data, adapter: adapter, direction: .sent, micros: micros, emit: emit)
            case 5: handleACL(data, adapter: adapter, direction: .received, micros: micros, emit: emit)
            default: break  // commands, SCO, ISO, index info, notes, logging
            }
        }
    }

    private mutating func handleEvent(
        _ packet: UnsafeRawBufferPointer, adapter: UInt16, micros: Int64, emit: (BorrowedCaptureEvent) -> Void
    ) {
        guard let code = packet.byte(at: 0), let length = packet.byte(at: 1),
              let parameters = packet.bytes(from: 2, count: Int(length))
        else {
            malformedPackets += 1
            return
        }
        switch code {
        case 0x05:  // Disconnection Complete: status, handle u16, reason
            guard let status = parameters.byte(at: 0), let handle = parameters.uint16LE(at: 1),
                  let reason = parameters.byte(at: 3)
            else {
                malformedPackets += 1
                return
            }
            guard status == 0 else { return }
            let link = LinkKey(adapter: adapter, connection: handle & 0x0FFF)
            forget(link: link)
            emit(.disconnected(link: link, reason: reason, hostMicros: micros))
        case 0x3E:  // LE Meta
            guard let subevent = parameters.byte(at: 0) else {
                malformedPackets += 1
                return
            }
            if subevent == 0x02 || subevent == 0x0D {
                advertisingReports(parameters, extended: subevent == 0x0D, adapter: adapter, micros: micros, emit: emit)
                return
            }
            // LE Connection Complete (0x01), Enhanced Connection Complete v1 (0x0A) and v2 (0x29) share the prefix
            // status u8, handle u16, role u8, peer address type u8, peer address[6].
            guard subevent == 0x01 || subevent == 0x0A || subevent == 0x29 else { return }
            guard let status = parameters.byte(at: 1), let handle = parameters.uint16LE(at: 2),
                  let address = parameters.bytes(from: 6, count: 6)
            else {
                malformedPackets += 1
                return
            }
            guard status == 0 else { return }
            let link = LinkKey(adapter: adapter, connection: handle & 0x0FFF)
            forget(link: link)
            emit(.connected(link: link, peer: Array(address.reversed()), hostMicros: micros))
        default:
            break
        }
    }

    /// LE Advertising Report (legacy: per report type, address type, address[6], data length, data, RSSI) or
    /// Extended Advertising Report (type u16, address type, address[6], 10 more bytes, data length, data): one
    /// `.advertisement` per manufacturer-specific AD structure. Reports from advertisers without one are skipped.
    private mutating func advertisingReports(
        _ parameters: UnsafeRawBufferPointer, extended: Bool, adapter: UInt16, micros: Int64,
        emit: (BorrowedCaptureEvent) -> Void
    ) {
        guard let count = parameters.byte(at: 1) else {
            malformedPackets += 1
            return
        }
        let addressOffset = extended ? 3 : 2
        let lengthOffset = extended ? 23 : 8
        var offset = 2
        for _ in 0..<count {
            guard let address = parameters.bytes(from: offset + addressOffset, count: 6),
                  let dataLength = parameters.byte(at: offset + lengthOffset),
                  let data = parameters.bytes(from: offset + lengthOffset + 1, count: Int(dataLength))
            else {
                malformedPackets += 1
                return
            }
            var structure = 0
            while structure < data.count {
                let length = Int(data[structure])
                guard length > 0 else { break }  // the rest is padding
                guard structure + 1 + length <= data.count else {
                    malformedPackets += 1
                    break
                }
                if data[structure + 1] == 0xFF, length >= 3, let company = data.uint16LE(at: structure + 2),
                   let payload = data.bytes(from: structure + 4, count: length - 3) {
                    emit(.advertisement(
                        adapter: adapter, address: Array(address.reversed()), manufacturerID: company, data: payload,
                        hostMicros: micros))
                }
                structure += 1 + length
            }
            offset += lengthOffset + 1 + Int(dataLength) + (extended ? 0 : 1)  // legacy reports end with RSSI
        }
    }

    private mutating func handleACL(
        _ packet: UnsafeRawBufferPointer, adapter: UInt16, direction: LinkDirection, micros: Int64,
        emit: (BorrowedCaptureEvent) -> Void
    ) {
        guard let handleField = packet.uint16LE(at: 0), let length = packet.uint16LE(at: 2),
              let fragment = packet.bytes(from: 4, count: Int(length))
        else {
            malformedPackets += 1
            return
        }
        let link = LinkKey(adapter: adapter, connection: handleField & 0x0FFF)
        let key = ACLReassembler.Key(link: link, direction: direction)
        switch reassembler.accept(fragment, packetBoundary: UInt8(handleField >> 12 & 0b11), key: key) {
        case .incomplete:
            break
        case .inPlace(let frame):
            handleL2CAP(frame, link: link, direction: direction, micros: micros, emit: emit)
        case .assembled(let frame):
            frame.withUnsafeBytes { handleL2CAP($0, link: link, direction: direction, micros: micros, emit: emit) }
        }
    }

    private mutating func handleL2CAP(
        _ frame: UnsafeRawBufferPointer, link: LinkKey, direction: LinkDirection, micros: Int64,
        emit: (BorrowedCaptureEvent) -> Void
    ) {
        guard let length = frame.uint16LE(at: 0), let channel = frame.uint16LE(at: 2),
              let payload = frame.bytes(from: 4, count: Int(length))
        else {
            malformedPackets += 1
            return
        }
        guard channel == 0x0004 else { return }
        handleATT(payload, link: link, direction: direction, micros: micros, emit: emit)
    }

    private mutating func forget(link: LinkKey) {
        reassembler.reset(link: link)
        pendingMTURequests[link] = nil
        pendingReadByType[link] = nil
    }

    private mutating func forget(adapter: UInt16) {
        reassembler.reset(adapter: adapter)
        pendingMTURequests = pendingMTURequests.filter { $0.key.adapter != adapter }
        pendingReadByType = pendingReadByType.filter { $0.key.adapter != adapter }
    }

    // MARK: - ATT

    private mutating func handleATT(
        _ pdu: UnsafeRawBufferPointer, link: LinkKey, direction: LinkDirection, micros: Int64,
        emit: (BorrowedCaptureEvent) -> Void
    ) {
        guard let opcode = pdu.byte(at: 0) else {
            malformedPackets += 1
            return
        }
        switch (opcode, direction) {
        case (0x1B, .received), (0x1D, .received):
            guard let handle = pdu.uint16LE(at: 1) else { return malformed() }
            emit(.notification(link: link, handle: handle, value: pdu.bytes(from: 3), hostMicros: micros))
        case (0x23, .received):
            var offset = 1
            while let handle = pdu.uint16LE(at: offset), let length = pdu.uint16LE(at: offset + 2),
                  let value = pdu.bytes(from: offset + 4, count: Int(length)) {
                emit(.notification(link: link, handle: handle, value: value, hostMicros: micros))
                offset += 4 + Int(length)
            }
            if offset != pdu.count { malformedPackets += 1 }
        case (0x12, .sent), (0x52, .sent):
            guard let handle = pdu.uint16LE(at: 1) else { return malformed() }
            emit(.write(link: link, handle: handle, value: pdu.bytes(from: 3), hostMicros: micros))
        case (0x02, _):
            guard let mtu = pdu.uint16LE(at: 1) else { return malformed() }
            pendingMTURequests[link] = (mtu, direction)
        case (0x03, _):
            guard let mtu = pdu.uint16LE(at: 1) else { return malformed() }
            guard let request = pendingMTURequests[link], request.direction != direction else { return }
            pendingMTURequests[link] = nil
            emit(.mtuExchanged(link: link, mtu: min(request.mtu, mtu), hostMicros: micros))
        case (0x08, .sent):
            // Read By Type Request: start u16, end u16, type (2 or 16 bytes).
            let type = pdu.bytes(from: 5)
            pendingReadByType[link] = type.count == 2 && type.uint16LE(at: 0) == 0x2803
                ? .characteristicDeclarations : .other
        case (0x09, .received):
            let request = pendingReadByType.removeValue(forKey: link)
            guard request != .other else { return }
            readCharacteristicDeclarations(pdu)
        case (0x01, .received):
            // Error Response: a Read By Type that ends in "Attribute Not Found" asked for nothing more.
            if pdu.byte(at: 1) == 0x08 { pendingReadByType[link] = nil }
        case (0x11, .received):
            readServices(pdu)
        case (0x05, .received):
            readDescriptors(pdu)
        default:
            break
        }
    }

    private mutating func malformed() {
        malformedPackets += 1
    }

    /// Read By Group Type Response: `11 | len | { start u16, end u16, UUID }*`, len 6 or 20.
    private mutating func readServices(_ pdu: UnsafeRawBufferPointer) {
        guard let length = pdu.byte(at: 1).map(Int.init), length == 6 || length == 20 else { return malformed() }
        var offset = 2
        while let entry = pdu.bytes(from: offset, count: length) {
            if let start = entry.uint16LE(at: 0), let end = entry.uint16LE(at: 2),
               let uuid = GATTDatabase.uuidString(fromWire: entry.bytes(from: 4)) {
                gatt.add(GATTDatabase.Service(startHandle: start, endHandle: end, uuid: uuid))
            }
            offset += length
        }
    }

    /// Read By Type Response for `0x2803`: `09 | len | { decl u16, properties u8, value u16, UUID }*`, len 7 or 21.
    private mutating func readCharacteristicDeclarations(_ pdu: UnsafeRawBufferPointer) {
        guard let length = pdu.byte(at: 1).map(Int.init), length == 7 || length == 21 else { return }
        var offset = 2
        while let entry = pdu.bytes(from: offset, count: length) {
            if let declaration = entry.uint16LE(at: 0), let properties = entry.byte(at: 2),
               let value = entry.uint16LE(at: 3), let uuid = GATTDatabase.uuidString(fromWire: entry.bytes(from: 5)) {
                gatt.add(GATTDatabase.Characteristic(
                    declarationHandle: declaration, properties: properties, valueHandle: value, uuid: uuid))
            }
            offset += length
        }
    }

    /// Find Information Response: `05 | format | { handle u16, UUID }*`, format 1 (16-bit) or 2 (128-bit).
    private mutating func readDescriptors(_ pdu: UnsafeRawBufferPointer) {
        let length: Int
        switch pdu.byte(at: 1) {
        case 1: length = 4
        case 2: length = 18
        default: return malformed()
        }
        var offset = 2
        while let entry = pdu.bytes(from: offset, count: length) {
            offset += length
            guard let handle = entry.uint16LE(at: 0), let uuid = GATTDatabase.uuidString(fromWire: entry.bytes(from: 2))
            else { continue }
            // Declarations and characteristic values also answer Find Information; they are not descriptors.
            let isCharacteristic = gatt.characteristics.contains {
                $0.valueHandle == handle || $0.declarationHandle == handle
            }
            if isCharacteristic || Self.declarationUUIDs.contains(uuid) { continue }
            gatt.add(GATTDatabase.Descriptor(handle: handle, uuid: uuid))
        }
    }

    /// Primary service, secondary service, include and characteristic declarations (0x2800–0x2803).
    private static let declarationUUIDs: Set<String> = Set(
        (0x2800...0x2803).map { "0000\(String($0, radix: 16))\(GATTDatabase.baseSuffix)" })
}
