/// Decides which HCI monitor frames a capture keeps: everything, or only what concerns one device (`--device`).
///
/// With a device, a frame is kept when it is:
/// - an index record of the adapter (`NEW_INDEX`, `DEL_INDEX`, `OPEN_INDEX`, `CLOSE_INDEX`, `INDEX_INFO`): the
///   adapter's own name and address, no one else's;
/// - an LE advertising report (legacy `3E/02`, extended `3E/0D`, directed `3E/0B`) from the device; a report
///   event that also lists other advertisers is rewritten to hold only the device's reports;
/// - an LE Connection Complete (`3E/01`, enhanced `3E/0A` and `3E/29`) with the device as peer: its connection
///   handle is remembered until the link's Disconnection Complete (or the adapter's `NEW_INDEX`/`DEL_INDEX`);
/// - ACL, SCO or ISO data, an event about a connection (disconnection, encryption, connection and PHY updates,
///   data length, Number Of Completed Packets — rewritten to list only remembered handles) on a remembered handle;
/// - an HCI command that names the device's address (LE Create Connection, LE Extended Create Connection, the
///   accept and resolving lists) or a remembered handle (Disconnect and the other per-connection commands), and
///   the Command Status or Command Complete answering it.
///
/// Everything else is dropped: other devices' adverts and connections, other commands, vendor diagnostics,
/// system notes and user logging (bluetoothd's log names other devices). A packet too short to tell is dropped and
/// counted in ``malformedPackets``. Without a device every frame is kept unread.
///
/// With an adapter index (`--index`), frames of other adapters are dropped first, and so are frames about no
/// adapter (index `0xFFFF`).
///
/// Pure: frames in, frames out, in order; the remembered handles are its only state.
public struct CaptureFilter: Sendable {
    /// The device's address, most significant byte first (as printed); nil keeps every frame.
    public let device: [UInt8]?
    /// The one adapter index to keep, or nil for all.
    public let adapter: UInt16?
    /// Packets inside frames too short or inconsistent to inspect (dropped; only counted with a device).
    public private(set) var malformedPackets = 0

    /// Connection handles of the device, per adapter.
    private var handles: Set<LinkKey> = []
    /// Commands kept and not yet answered by Command Status or Command Complete.
    private var pendingCommands: [PendingCommand: Int] = [:]

    private struct PendingCommand: Hashable {
        var adapter: UInt16
        var opcode: UInt16
    }

    /// A filter for one device and/or adapter.
    /// - Parameters:
    ///   - device: the device's 6-byte address, most significant byte first; nil keeps every device's frames.
    ///   - adapter: the adapter index to keep, or nil for every adapter.
    public init(device: [UInt8]? = nil, adapter: UInt16? = nil) {
        self.device = device
        self.adapter = adapter
    }

    /// The connection handles of the device currently open on `adapter`.
    /// - Parameter adapter: the adapter index.
    /// - Returns: the 12-bit handles, sorted.
    public func connections(on adapter: UInt16) -> [UInt16] {
        handles.filter { $0.adapter == adapter }.map(\.connection).sorted()
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case; `-` also separates).
    /// - Parameter text: the address as printed.
    /// - Returns: its 6 bytes, most significant first, or nil when it is not an address.
    public static func address(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).count == 6
            ? text.split(separator: ":", omittingEmptySubsequences: false)
            : text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 }) else { return nil }
        let bytes = parts.compactMap { UInt8($0, radix: 16) }
        return bytes.count == 6 ? bytes : nil
    }

    /// Decides one frame, in capture order.
    /// - Parameter frame: the next frame from the monitor channel.
    /// - Returns: the frame to write (possibly rewritten to leave other devices out), or nil to drop it.
    public mutating func filter(_ frame: MonitorFrame) -> MonitorFrame? {
        if let adapter, frame.index != adapter { return nil }
        guard let device else { return frame }
        switch frame.opcode {
        case .newIndex, .deleteIndex:
            forget(adapter: frame.index)
            return frame
        case .openIndex, .closeIndex, .indexInfo:
            return frame
        case .command:
            return command(frame, device: device) ? frame : nil
        case .event:
            return event(frame, device: device)
        case .aclSent, .aclReceived, .scoSent, .scoReceived, .isoSent, .isoReceived:
            guard let handle = Self.uint16(frame.payload, at: 0) else { return malformed() }
            return isRemembered(handle, on: frame.index) ? frame : nil
        default:
            return nil
        }
    }

    // MARK: - Commands

    /// Commands whose parameters hold a peer address, and where (offset in the parameters).
    private static let addressCommands: [UInt16: Int] = [
        0x200D: 6,  // LE Create Connection: scan interval, window, filter policy, peer type, peer address
        0x2043: 3,  // LE Extended Create Connection: filter policy, own type, peer type, peer address
        0x2011: 1, 0x2012: 1,  // LE Add/Remove Device To/From Filter Accept List: type, address
        0x2027: 1, 0x2028: 1,  // LE Add/Remove Device To/From Resolving List: type, address
    ]

    /// Commands whose first parameter is a connection handle.
    private static let handleCommands: Set<UInt16> = [
        0x0406,  // Disconnect
        0x041D,  // Read Remote Version Information
        0x1405,  // Read RSSI
        0x2013, 0x2016, 0x2019,  // LE Connection Update, Read Remote Features, Enable Encryption
        0x201A, 0x201B,  // LE Long Term Key Request Reply / Negative Reply
        0x2020, 0x2021,  // LE Remote Connection Parameter Request Reply / Negative Reply
        0x2022, 0x2030, 0x2032,  // LE Set Data Length, Read PHY, Set PHY
    ]

    /// Whether to keep a command; a kept command's answer (Command Status/Complete) is kept too.
    private mutating func command(_ frame: MonitorFrame, device: [UInt8]) -> Bool {
        let packet = frame.payload
        guard let opcode = Self.uint16(packet, at: 0), packet.count >= 3, packet.count - 3 >= Int(packet[2]) else {
            malformed()
            return false
        }
        let parameters = Array(packet[3..<(3 + Int(packet[2]))])
        let keep: Bool
        if let offset = Self.addressCommands[opcode] {
            guard let named = Self.address(parameters, at: offset) else {
                malformed()
                return false
            }
            keep = named == device
        } else if Self.handleCommands.contains(opcode) {
            guard let handle = Self.uint16(parameters, at: 0) else {
                malformed()
                return false
            }
            keep = isRemembered(handle, on: frame.index)
        } else {
            keep = false
        }
        if keep { pendingCommands[PendingCommand(adapter: frame.index, opcode: opcode), default: 0] += 1 }
        return keep
    }

    /// Takes the answer to a kept command off the pending list; false when no kept command waits for it.
    private mutating func answer(_ opcode: UInt16, on adapter: UInt16) -> Bool {
        let key = PendingCommand(adapter: adapter, opcode: opcode)
        guard let count = pendingCommands[key] else { return false }
        pendingCommands[key] = count > 1 ? count - 1 : nil
        return true
    }

    // MARK: - Events

    /// Events about one connection, and the offset of the handle in their parameters.
    private static let handleEvents: [UInt8: Int] = [
        0x08: 1,  // Encryption Change: status, handle
        0x0C: 1,  // Read Remote Version Information Complete: status, handle
        0x30: 1,  // Encryption Key Refresh Complete: status, handle
        0x57: 0,  // Authenticated Payload Timeout Expired: handle
        0x59: 1,  // Encryption Change v2: status, handle
    ]

    /// LE Meta subevents about one connection, and the offset of the handle in the parameters (after the
    /// subevent byte at 0).
    private static let handleSubevents: [UInt8: Int] = [
        0x03: 2,  // Connection Update Complete: status, handle
        0x04: 2,  // Read Remote Features Complete: status, handle
        0x05: 1,  // Long Term Key Request: handle
        0x06: 1,  // Remote Connection Parameter Request: handle
        0x07: 1,  // Data Length Change: handle
        0x0C: 2,  // PHY Update Complete: status, handle
        0x14: 1,  // Channel Selection Algorithm: handle
    ]

    private mutating func event(_ frame: MonitorFrame, device: [UInt8]) -> MonitorFrame? {
        let packet = frame.payload
        guard packet.count >= 2, packet.count - 2 >= Int(packet[1]) else { return malformed() }
        let code = packet[0]
        let parameters = Array(packet[2..<(2 + Int(packet[1]))])
        let adapter = frame.index
        switch code {
        case 0x05:  // Disconnection Complete: status, handle, reason
            guard let status = parameters.first, let handle = Self.uint16(parameters, at: 1) else { return malformed() }
            guard isRemembered(handle, on: adapter) else { return nil }
            if status == 0 { handles.remove(LinkKey(adapter: adapter, connection: handle & 0x0FFF)) }
            return frame
        case 0x0E:  // Command Complete: packets, opcode, return parameters
            guard let opcode = Self.uint16(parameters, at: 1) else { return malformed() }
            if Self.handleCommands.contains(opcode), let handle = Self.uint16(parameters, at: 4) {
                // The answer names its connection (status, handle, …): that decides, not the order of answers.
                guard isRemembered(handle, on: adapter) else { return nil }
                _ = answer(opcode, on: adapter)
                return frame
            }
            return answer(opcode, on: adapter) ? frame : nil
        case 0x0F:  // Command Status: status, packets, opcode
            guard let opcode = Self.uint16(parameters, at: 2) else { return malformed() }
            return answer(opcode, on: adapter) ? frame : nil
        case 0x13:  // Number Of Completed Packets: count, then {handle u16, packets u16} per connection
            return completedPackets(frame, parameters: parameters)
        case 0x3E:
            return leMeta(frame, parameters: parameters, device: device)
        default:
            guard let offset = Self.handleEvents[code] else { return nil }
            guard let handle = Self.uint16(parameters, at: offset) else { return malformed() }
            return isRemembered(handle, on: adapter) ? frame : nil
        }
    }

    private mutating func leMeta(_ frame: MonitorFrame, parameters: [UInt8], device: [UInt8]) -> MonitorFrame? {
        guard let subevent = parameters.first else { return malformed() }
        switch subevent {
        case 0x01, 0x0A, 0x29:
            // (Enhanced) Connection Complete: status, handle, role, peer address type, peer address, ….
            guard parameters.count >= 12, let handle = Self.uint16(parameters, at: 2),
                  let peer = Self.address(parameters, at: 6)
            else { return malformed() }
            guard peer == device else { return nil }
            if parameters[1] == 0 { handles.insert(LinkKey(adapter: frame.index, connection: handle & 0x0FFF)) }
            return frame
        case 0x02:
            // Advertising Report: per report type, address type, address, data length, data, RSSI.
            return advertising(frame, parameters: parameters, device: device, addressOffset: 2) { report in
                report.count >= 9 ? 10 + Int(report[8]) : nil
            }
        case 0x0D:
            // Extended Advertising Report: type u16, address type, address, PHYs, SID, TX power, RSSI, interval,
            // direct address type and address, data length (byte 23), data.
            return advertising(frame, parameters: parameters, device: device, addressOffset: 3) { report in
                report.count >= 24 ? 24 + Int(report[23]) : nil
            }
        case 0x0B:
            // Directed Advertising Report: type, address type, address, direct address type and address, RSSI.
            return advertising(frame, parameters: parameters, device: device, addressOffset: 2) { _ in 16 }
        default:
            guard let offset = Self.handleSubevents[subevent] else { return nil }
            guard let handle = Self.uint16(parameters, at: offset) else { return malformed() }
            return isRemembered(handle, on: frame.index) ? frame : nil
        }
    }

    /// Keeps the device's reports of an advertising report event: the frame as is when every report is the
    /// device's, rewritten with only those reports when others are in it, nil when none is.
    /// - Parameter length: a report's length from its first (up to 24) bytes, nil when too short to say.
    private mutating func advertising(
        _ frame: MonitorFrame, parameters: [UInt8], device: [UInt8], addressOffset: Int,
        length: ([UInt8]) -> Int?
    ) -> MonitorFrame? {
        guard parameters.count >= 2 else { return malformed() }
        let count = Int(parameters[1])
        var offset = 2
        var matching: [ArraySlice<UInt8>] = []
        for _ in 0..<count {
            // The report's fixed part (at most 24 bytes), indexed from 0 for `length`.
            let head = Array(parameters[offset...].prefix(24))
            guard let size = length(head), size <= parameters.count - offset else { return malformed() }
            let report = parameters[offset..<(offset + size)]
            if Self.address(Array(report), at: addressOffset) == device { matching.append(report) }
            offset += size
        }
        guard offset == parameters.count else { return malformed() }
        if matching.isEmpty { return nil }
        if matching.count == count { return frame }
        let kept = [parameters[0], UInt8(matching.count)] + matching.flatMap { $0 }
        var rewritten = frame
        rewritten.payload = [0x3E, UInt8(kept.count)] + kept
        return rewritten
    }

    /// Number Of Completed Packets, with only the remembered handles (nil when none is).
    private mutating func completedPackets(_ frame: MonitorFrame, parameters: [UInt8]) -> MonitorFrame? {
        guard let count = parameters.first.map(Int.init), parameters.count == 1 + 4 * count else { return malformed() }
        var kept: [UInt8] = []
        for entry in 0..<count {
            let start = 1 + 4 * entry
            guard let handle = Self.uint16(parameters, at: start) else { return malformed() }
            if isRemembered(handle, on: frame.index) { kept += parameters[start..<(start + 4)] }
        }
        if kept.isEmpty { return nil }
        if kept.count == 4 * count { return frame }
        var rewritten = frame
        rewritten.payload = [0x13, UInt8(1 + kept.count), UInt8(kept.count / 4)] + kept
        return rewritten
    }

    // MARK: - State and bytes

    private func isRemembered(_ handle: UInt16, on adapter: UInt16) -> Bool {
        handles.contains(LinkKey(adapter: adapter, connection: handle & 0x0FFF))
    }

    /// The adapter (re)started or went away: its handles and unanswered commands mean nothing any more.
    private mutating func forget(adapter: UInt16) {
        handles = handles.filter { $0.adapter != adapter }
        pendingCommands = pendingCommands.filter { $0.key.adapter != adapter }
    }

    @discardableResult
    private mutating func malformed() -> MonitorFrame? {
        malformedPackets += 1
        return nil
    }

    private static func uint16(_ bytes: [UInt8], at index: Int) -> UInt16? {
        guard index >= 0, index <= bytes.count - 2 else { return nil }
        return UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
    }

    /// The 6-byte address at `index` (little-endian on the wire), most significant byte first.
    private static func address(_ bytes: [UInt8], at index: Int) -> [UInt8]? {
        guard index >= 0, index <= bytes.count - 6 else { return nil }
        return Array(bytes[index..<(index + 6)].reversed())
    }
}
