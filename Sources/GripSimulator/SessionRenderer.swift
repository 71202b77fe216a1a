import GripWire

/// The simulated peripheral's GATT layout: GAP, GATT, the Progressor service and Nordic's Secure DFU service (the
/// vendor states the Progressor carries it), whose control-point notifications are the stray frames on the wrong
/// handle.
enum SimulatedGATT {
    static let dataValue: UInt16 = 0x000E
    static let dataCCCD: UInt16 = 0x000F
    static let controlValue: UInt16 = 0x0011
    static let dfuControlValue: UInt16 = 0x0014
    /// As printed (most significant byte first).
    static let peer: [UInt8] = [0xF4, 0xD3, 0x6B, 0x4A, 0x17, 0x19]

    /// A Bluetooth SIG 16-bit UUID in canonical 128-bit form.
    private static func sig(_ short: String) -> String { "0000\(short)-0000-1000-8000-00805f9b34fb" }

    static let database: GATTDatabase = {
        let profile = TindeqProgressor()
        return GATTDatabase(
            services: [
                .init(startHandle: 0x0001, endHandle: 0x0007, uuid: sig("1800")),
                .init(startHandle: 0x0008, endHandle: 0x000B, uuid: sig("1801")),
                .init(startHandle: 0x000C, endHandle: 0x0011, uuid: profile.serviceUUID),
                .init(startHandle: 0x0012, endHandle: 0x0015, uuid: sig("fe59")),
            ],
            characteristics: [
                .init(declarationHandle: 0x000D, properties: 0x10, valueHandle: dataValue,
                      uuid: profile.dataCharacteristicUUID),
                .init(declarationHandle: 0x0010, properties: 0x0C, valueHandle: controlValue,
                      uuid: profile.controlCharacteristicUUID),
                .init(declarationHandle: 0x0013, properties: 0x18, valueHandle: dfuControlValue,
                      uuid: "8ec90001-f315-4f60-9fb8-838830daea50"),
            ],
            descriptors: [
                .init(handle: dataCCCD, uuid: sig("2902")),
                .init(handle: 0x0015, uuid: sig("2902")),
            ])
    }()
}

/// Walks a session's steps and writes the records; all state of the simulated device lives here.
struct SessionRenderer {
    let session: ProgressorSession
    var writer: BtsnoopWriter
    private var random: SplitMix64
    private var hostMicros: Int64
    private var connection: UInt16 = 0x0040
    private var connected = false
    private var measuring = false
    /// The device's µs counter at the next sample slot, and the slot index (for the every-16th gap).
    private var deviceMicros: UInt32 = 0
    private var slot = 0
    private var missingPhase = 5
    private var lastWeightFrame: [UInt8]?
    private let samplesPerFrame: Int

    init(session: ProgressorSession) {
        self.session = session
        writer = BtsnoopWriter(datalink: session.datalink)
        random = SplitMix64(seed: session.seed)
        hostMicros = session.startMicros
        samplesPerFrame = max(1, (Int(session.mtu) - 3 - 2) / 8)
        writer.appendNewIndex(address: [0x01, 0x00, 0x00, 0xEB, 0x27, 0xB8], name: "hci0", hostMicros: hostMicros)
    }

    mutating func perform(_ step: ProgressorSession.Step) {
        switch step {
        case .connect(let discover): connect(discover: discover)
        case .command(let command): send(command)
        case .stream(let seconds, let program): stream(seconds: seconds, program: program)
        case .malformed(let kind): sendMalformed(kind)
        case .lowPowerWarning: notify([0x04, 0x00])
        case .disconnect(let reason):
            advance(by: 30_000)
            writer.appendDisconnectionComplete(connection: connection, reason: reason, hostMicros: hostMicros)
            connected = false
            measuring = false
            connection += 1
        case .pause(let seconds): advance(by: Int64(seconds * 1_000_000))
        case .setDeviceClock(let value):
            // The capture starts mid-measurement: the device is already streaming.
            deviceMicros = value
            measuring = true
        }
    }

    // MARK: Link and discovery

    private mutating func connect(discover: Bool) {
        advance(by: 150_000)
        writer.appendLEConnectionComplete(connection: connection, peer: SimulatedGATT.peer, hostMicros: hostMicros)
        connected = true
        if discover {
            exchange(ATTPDU.exchangeMTURequest(mtu: session.mtu), ATTPDU.exchangeMTUResponse(mtu: 247))
            let conversation = ATTPDU.discoveryExchange(of: SimulatedGATT.database, mtu: Int(session.mtu))
            for (request, response) in zip(conversation, conversation.dropFirst()) where request.direction == .sent {
                exchange(request.pdu, response.pdu)
            }
        }
        // BlueZ re-enables notifications on every connection, cached database or not.
        exchange(ATTPDU.writeRequest(handle: SimulatedGATT.dataCCCD, value: [0x01, 0x00]), ATTPDU.writeResponse())
    }

    /// A request from the host and the device's response one connection event later.
    private mutating func exchange(_ request: [UInt8], _ response: [UInt8]) {
        advance(by: 7_500)
        writer.appendATT(request, connection: connection, direction: .sent, hostMicros: hostMicros,
                         aclDataLength: session.aclDataLength)
        advance(by: 30_000 + Int64(random.unit() * 15_000))
        writer.appendATT(response, connection: connection, direction: .received, hostMicros: hostMicros,
                         aclDataLength: session.aclDataLength)
    }

    // MARK: Commands

    private mutating func send(_ command: DeviceCommand) {
        guard let bytes = TindeqProgressor().encode(command) else { return }
        exchange(ATTPDU.writeRequest(handle: SimulatedGATT.controlValue, value: bytes), ATTPDU.writeResponse())
        switch command {
        case .startMeasurement:
            measuring = true
            deviceMicros = 40_000 + UInt32(random.unit() * 60_000)
            slot = 0
            missingPhase = Int(random.next() % 16)
        case .stopMeasurement, .sleep:
            measuring = false
        case .battery:
            advance(by: 20_000)
            notify([0x00, 0x04] + littleEndianBytes(UInt32(3_912)))
        case .version:
            advance(by: 20_000)
            let version = Array("1.2.3.4".utf8)
            notify([0x00, UInt8(version.count)] + version)
        case .identifier:
            advance(by: 20_000)
            notify([0x00, 0x06, 0x19, 0x17, 0x4A, 0x6B, 0xD3, 0xF4])
        case .tare:
            break
        }
    }

    // MARK: Streaming

    private mutating func stream(seconds: Double, program: ForceProgram) {
        precondition(measuring, "simulated session streams without a START command")
        var elapsed = 0.0
        var frame: [UInt8] = []
        var frameSamples = 0
        var slotStartHost = hostMicros
        while elapsed < seconds {
            // The device skips every 16th slot; the tick itself jitters between 11.35 and 11.41 ms.
            let tick = UInt32(11_350 + random.next() % 61)
            slot += 1
            let skipped = slot % 16 == missingPhase
            deviceMicros &+= tick
            elapsed += Double(tick) / 1_000_000
            slotStartHost += Int64(tick)
            if skipped { continue }
            let kilograms = Float(program.force(at: elapsed) + random.gaussian(sigma: program.noise))
            frame += littleEndianBytes(kilograms.bitPattern) + littleEndianBytes(deviceMicros)
            frameSamples += 1
            if frameSamples == samplesPerFrame {
                hostMicros = max(hostMicros + 1, slotStartHost + 2_000 + Int64(random.next() % 4_000))
                emitWeightFrame(frame)
                frame.removeAll(keepingCapacity: true)
                frameSamples = 0
            }
        }
        if frameSamples > 0 {
            hostMicros = max(hostMicros + 1, slotStartHost + 2_000)
            emitWeightFrame(frame)
        }
    }

    private mutating func emitWeightFrame(_ samples: [UInt8]) {
        let value = [0x01, UInt8(samples.count)] + samples
        writer.appendATT(ATTPDU.notification(handle: SimulatedGATT.dataValue, value: value), connection: connection,
                         direction: .received, hostMicros: hostMicros, aclDataLength: session.aclDataLength)
        lastWeightFrame = value
    }

    private mutating func sendMalformed(_ kind: ProgressorSession.MalformedFrame) {
        advance(by: 3_000)
        let sample = littleEndianBytes(Float(1.5).bitPattern) + littleEndianBytes(deviceMicros &+ 1)
        switch kind {
        case .short: notify([0x01])
        case .lengthMismatch: notify([0x01, 0x10] + sample)
        case .notMultipleOf8: notify([0x01, 0x06] + Array(sample.prefix(6)))
        case .unknownCode: notify([0x09, 0x02, 0xAA, 0x55])
        case .nonFinite: notify([0x01, 0x08] + littleEndianBytes(Float.nan.bitPattern) + Array(sample.suffix(4)))
        case .duplicateOfPrevious: if let last = lastWeightFrame { notify(last) }
        case .hugeForce: notify([0x01, 0x08] + littleEndianBytes(Float(3.4e38).bitPattern) + Array(sample.suffix(4)))
        case .negativeForce: notify([0x01, 0x08] + littleEndianBytes(Float(-5_000).bitPattern) + Array(sample.suffix(4)))
        case .implausibleStep: notify([0x01, 0x08] + littleEndianBytes(Float(151.5).bitPattern) + Array(sample.suffix(4)))
        case .timeJump:
            notify([0x01, 0x08] + littleEndianBytes(Float(0.4).bitPattern) + littleEndianBytes(deviceMicros &+ 3_600_000_000))
        case .otherHandle:
            writer.appendATT(ATTPDU.notification(handle: SimulatedGATT.dfuControlValue, value: [0x60, 0x01, 0x01]),
                             connection: connection, direction: .received, hostMicros: hostMicros,
                             aclDataLength: session.aclDataLength)
        }
    }

    private mutating func notify(_ value: [UInt8]) {
        advance(by: 1_000)
        writer.appendATT(ATTPDU.notification(handle: SimulatedGATT.dataValue, value: value), connection: connection,
                         direction: .received, hostMicros: hostMicros, aclDataLength: session.aclDataLength)
    }

    private mutating func advance(by micros: Int64) { hostMicros += micros }
}

func littleEndianBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}
