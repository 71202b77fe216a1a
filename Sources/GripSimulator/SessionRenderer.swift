import GripWire

/// The simulated peripheral's address, as printed (most significant byte first).
enum SimulatedPeer {
    static let address: [UInt8] = [0xF4, 0xD3, 0x6B, 0x4A, 0x17, 0x19]
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
    /// A host-stamped-style device that sends its own ms clock (the Frez Dyno): ms since START.
    private var deviceMillis: UInt32 = 0
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
        writer.appendLEConnectionComplete(connection: connection, peer: SimulatedPeer.address, hostMicros: hostMicros)
        connected = true
        if discover {
            exchange(ATTPDU.exchangeMTURequest(mtu: session.mtu), ATTPDU.exchangeMTUResponse(mtu: 247))
            let conversation = ATTPDU.discoveryExchange(of: session.device.database, mtu: Int(session.mtu))
            for (request, response) in zip(conversation, conversation.dropFirst()) where request.direction == .sent {
                exchange(request.pdu, response.pdu)
            }
        }
        // BlueZ re-enables notifications (or indications) on every connection, cached database or not.
        let cccd: [UInt8] = session.device.profile.transport == .indicate ? [0x02, 0x00] : [0x01, 0x00]
        exchange(ATTPDU.writeRequest(handle: SimulatedDevice.dataCCCD, value: cccd), ATTPDU.writeResponse())
        // A device without commands streams as soon as its data is subscribed to; a Mito's clock is µs since boot.
        if session.device.controlValue == nil { measuring = true }
        if session.device == .mito { deviceMicros = 37_000_000 + UInt32(random.unit() * 5_000_000) }
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
        guard let control = session.device.controlValue, let bytes = session.device.profile.encode(command) else { return }
        exchange(ATTPDU.writeRequest(handle: control, value: bytes), ATTPDU.writeResponse())
        if session.device == .cts500 {
            // The scale echoes every command byte for byte; the battery query is answered `05 80 C4 d0 d1 d2 cs`,
            // volts = (d1 << 8 | d2) / 100 (3.55 V, hangtime's fixture).
            advance(by: 20_000)
            notify(bytes)
            if command == .battery {
                advance(by: 10_000)
                notify(SimulatedDevice.cts500Frame([0x05, 0x80, 0xC4, 0x00, 0x01, 0x63]))
            }
        }
        if session.device == .motherboard {
            // `C`: the 16 calibration lines; `S30`: "Stream: 30"; the empty stop: nothing. Cut as the UART's
            // output always is, into notifications of at most 20 bytes.
            var answer: [UInt8] = command == .readCalibration ? SimulatedDevice.motherboardCalibrationText
                : command == .startMeasurement ? Array("Stream: 30\r\n".utf8) : []
            if !answer.isEmpty { sendBacklog(&answer, at: hostMicros + 20_000) }
        }
        guard session.device.speaksProgressor else {
            if command == .startMeasurement {
                measuring = true
                deviceMillis = 0
            }
            if command == .stopMeasurement { measuring = false }
            return
        }
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
            // BigBanger answers a constant 3000 mV (`config.py`).
            notify([0x00, 0x04] + littleEndianBytes(UInt32(session.device == .bigBanger ? 3_000 : 3_912)))
        case .version:
            advance(by: 20_000)
            let version = Array("1.2.3.4".utf8)
            notify([0x00, UInt8(version.count)] + version)
        case .identifier:
            advance(by: 20_000)
            notify([0x00, 0x06, 0x19, 0x17, 0x4A, 0x6B, 0xD3, 0xF4])
        case .tare, .sampleRate, .readCalibration:
            break
        }
    }

    // MARK: Streaming

    private mutating func stream(seconds: Double, program: ForceProgram) {
        precondition(measuring || session.device.profile.transport == .advertisement,
                     "simulated session streams without a START command")
        guard session.device.speaksProgressor else { return streamHostStamped(seconds: seconds, program: program) }
        let clonePeriod = session.device.clonePeriodMicros
        let perFrame = clonePeriod == nil ? samplesPerFrame : 1
        var elapsed = 0.0
        var frame: [UInt8] = []
        var frameSamples = 0
        var slotStartHost = hostMicros
        while elapsed < seconds {
            // The device skips every 16th slot; the tick itself jitters between 11.35 and 11.41 ms. A clone ticks at
            // its own steady period (a crystal's jitter of ±20 µs) and skips none.
            let tick = clonePeriod.map { $0 - 20 + UInt32(random.next() % 41) } ?? UInt32(11_350 + random.next() % 61)
            slot += 1
            let skipped = clonePeriod == nil && slot % 16 == missingPhase
            deviceMicros &+= tick
            elapsed += Double(tick) / 1_000_000
            slotStartHost += Int64(tick)
            if skipped { continue }
            var kilograms = Float(program.force(at: elapsed) + random.gaussian(sigma: program.noise))
            // Mito clamps readings below its offset to 0 (`prototype.ino`).
            if session.device == .mito { kilograms = max(kilograms, 0) }
            frame += littleEndianBytes(kilograms.bitPattern) + littleEndianBytes(deviceMicros)
            frameSamples += 1
            if frameSamples == perFrame {
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

    /// A device without time stamps: samples at its rate with a little crystal jitter, sent a few per notification;
    /// each notification waits for the next connection event (every 30 ms, as BlueZ negotiates by default), so
    /// arrival times jitter the way they do on a real link.
    private mutating func streamHostStamped(seconds: Double, program: ForceProgram) {
        let device = session.device
        let period = 1 / device.rateHz
        var elapsed = 0.0
        var pending: [Double] = []
        var pendingMillis: [UInt32] = []
        var sampleHost = Double(hostMicros)
        // A byte-stream device's bytes waiting for their connection event, and when that is.
        var backlog: [UInt8] = []
        var backlogEvent: Int64 = 0
        while elapsed < seconds {
            let tick = period * (1 + (random.unit() - 0.5) * 0.002)
            elapsed += tick
            sampleHost += tick * 1_000_000
            pending.append(program.force(at: elapsed) + random.gaussian(sigma: program.noise))
            deviceMillis += UInt32((tick * 1_000).rounded())
            pendingMillis.append(deviceMillis)
            if pending.count == device.samplesPerFrame {
                let connectionEvent: Int64 = 30_000
                let ready = Int64(sampleHost)
                let next = (ready / connectionEvent + 1) * connectionEvent + Int64(random.next() % 1_500)
                if device.streamsBytes {
                    // The UART's bytes go out at the next connection event, cut into values of at most 20 bytes.
                    if !backlog.isEmpty && next / connectionEvent != backlogEvent / connectionEvent {
                        sendBacklog(&backlog, at: backlogEvent)
                    }
                    if backlog.isEmpty { backlogEvent = next }
                    backlog += device.frame(kilograms: pending, millis: pendingMillis)
                    pending.removeAll(keepingCapacity: true)
                    pendingMillis.removeAll(keepingCapacity: true)
                    continue
                }
                hostMicros = max(hostMicros + 1, next)
                notify(device.frame(kilograms: pending, millis: pendingMillis), advancing: false)
                pending.removeAll(keepingCapacity: true)
                pendingMillis.removeAll(keepingCapacity: true)
            }
        }
        if !backlog.isEmpty { sendBacklog(&backlog, at: backlogEvent) }
        // A device with a fixed frame size (the Frez Dyno's nine samples) leaves the remainder unsent.
        if !pending.isEmpty && device != .frezDyno {
            hostMicros = max(hostMicros + 1, Int64(sampleHost) + 2_000)
            notify(device.frame(kilograms: pending, millis: pendingMillis), advancing: false)
        }
    }

    /// A byte-stream device's bytes sent at one connection event: notifications of at most 20 bytes (MTU 23),
    /// 100 µs apart.
    private mutating func sendBacklog(_ backlog: inout [UInt8], at micros: Int64) {
        hostMicros = max(hostMicros + 1, micros)
        var start = 0
        while start < backlog.count {
            let end = min(start + 20, backlog.count)
            notify(Array(backlog[start..<end]), advancing: false)
            hostMicros += 100
            start = end
        }
        backlog.removeAll(keepingCapacity: true)
    }

    private mutating func emitWeightFrame(_ samples: [UInt8]) {
        let value = [0x01, UInt8(samples.count)] + samples
        writer.appendATT(ATTPDU.notification(handle: SimulatedDevice.dataValue, value: value), connection: connection,
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
        case .badChecksum:
            // 0.5 kg (`05 01 00 00 00 32`), its checksum one too high.
            notify(SimulatedDevice.cts500Frame([0x05, 0x01, 0x00, 0x00, 0x00, 0x32]).enumerated().map { $0.offset == 6 ? $0.element &+ 1 : $0.element })
        case .lostReport:
            deviceMillis += 33
        case .crimpdeqCalibration:
            notify([0x05, 0x04] + littleEndianBytes(Float(0.000_123).bitPattern))
            notify([0x06, 0x08] + littleEndianBytes(Float(84_512).bitPattern) + littleEndianBytes(Float(20).bitPattern))
        case .otherHandle:
            writer.appendATT(ATTPDU.notification(handle: SimulatedDevice.dfuControlValue, value: [0x60, 0x01, 0x01]),
                             connection: connection, direction: .received, hostMicros: hostMicros,
                             aclDataLength: session.aclDataLength)
        }
    }

    /// One value on the data characteristic, as a notification or (for an indicating device) an indication and
    /// the host's confirmation.
    private mutating func notify(_ value: [UInt8], advancing: Bool = true) {
        if advancing { advance(by: 1_000) }
        if session.device.profile.transport == .advertisement {
            writer.appendLEAdvertisingReport(
                address: SimulatedPeer.address, data: session.device.advertisingData(manufacturerData: value), rssi: -62,
                hostMicros: hostMicros)
            return
        }
        let indicates = session.device.profile.transport == .indicate
        let pdu = indicates
            ? ATTPDU.indication(handle: SimulatedDevice.dataValue, value: value)
            : ATTPDU.notification(handle: SimulatedDevice.dataValue, value: value)
        writer.appendATT(pdu, connection: connection, direction: .received, hostMicros: hostMicros,
                         aclDataLength: session.aclDataLength)
        if indicates {
            writer.appendATT([ATTPDU.Opcode.handleValueConfirmation.rawValue], connection: connection, direction: .sent,
                             hostMicros: hostMicros + 200, aclDataLength: session.aclDataLength)
        }
    }

    private mutating func advance(by micros: Int64) { hostMicros += micros }
}

func littleEndianBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}
