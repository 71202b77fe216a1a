import GripWire

/// A scripted Tindeq Progressor session, rendered as a btsnoop capture exactly as `btmon -w` (datalink 2001) or
/// an Android HCI snoop log (1002) would have recorded it: LE connection, MTU exchange, GATT discovery, the CCCD
/// write, control-point commands and their responses, and weight notifications with the device's real timing
/// (≈11.4 ms ticks, every 16th slot missing; `docs/devices.md` §4).
///
/// No public capture of a force device exists, so these synthesized sessions are griptrack's replay fixtures.
/// Rendering is deterministic: the same session and seed give the same bytes on every machine.
public struct ProgressorSession: Sendable {
    /// One thing that happens during the session, in order.
    public enum Step: Sendable {
        /// LE connection; with `discover`, the MTU exchange, GATT discovery and CCCD write a fresh host performs
        /// (a host that cached the GATT database skips discovery but still enables notifications).
        case connect(discover: Bool)
        /// A control-point write, and the device's response for battery, version and id.
        case command(DeviceCommand)
        /// The device streams weight frames for this long while the hand follows the program.
        case stream(seconds: Double, ForceProgram)
        /// One malformed or stray frame between weight frames.
        case malformed(MalformedFrame)
        /// The device's low-power warning frame (`04 00`).
        case lowPowerWarning
        /// The link drops (HCI Disconnection Complete with this reason).
        case disconnect(reason: UInt8)
        /// Host time passes with nothing on the air.
        case pause(seconds: Double)
        /// The device's µs counter reads this at the next sample (to reproduce a capture taken 71 minutes into a
        /// measurement, just before the u32 wrap).
        case setDeviceClock(UInt32)
    }

    /// Kinds of bad frames a real link can deliver; at least one per `FrameRejection` reason.
    public enum MalformedFrame: Sendable, CaseIterable {
        case short, lengthMismatch, notMultipleOf8, unknownCode, nonFinite, duplicateOfPrevious, otherHandle
        /// A finite weight no Progressor measures: 3.4e38 kg (a corrupted exponent).
        case hugeForce
        /// A finite weight no Progressor measures: −5000 kg.
        case negativeForce
        /// A weight inside the range, 150 kg above the last sample 3 ms later (a corrupted mantissa).
        case implausibleStep
        /// A believable weight stamped an hour ahead of the device clock (a corrupted time stamp).
        case timeJump
        /// A byte-stream device's frame whose checksum is off by one (the CTS500), in a notification of its own.
        case badChecksum
        /// Crimpdeq's answers to its calibration commands (another client's): `05 04` f32 factor, then `06 08` f32
        /// raw and f32 kg.
        case crimpdeqCalibration
        /// A report the Motherboard counted and the host never got: the next line's sample number skips one.
        case lostReport
    }

    /// The device played; the Progressor unless said otherwise (the type keeps its name from when it was the only one).
    public var device: SimulatedDevice
    public var datalink: BtsnoopDatalink
    /// The ATT MTU the host asks for; sets how many samples fit in one notification.
    public var mtu: UInt16
    /// The LE ACL data length (27 without Data Length Extension); longer PDUs are fragmented.
    public var aclDataLength: Int
    /// Unix µs of the first record.
    public var startMicros: Int64
    public var seed: UInt64
    public var steps: [Step]

    public init(
        device: SimulatedDevice = .progressor, datalink: BtsnoopDatalink = .linuxMonitor, mtu: UInt16 = 23, aclDataLength: Int = 27,
        startMicros: Int64 = 1_795_000_000_000_000, seed: UInt64 = 1, steps: [Step]
    ) {
        self.device = device
        self.datalink = datalink
        self.mtu = mtu
        self.aclDataLength = aclDataLength
        self.startMicros = startMicros
        self.seed = seed
        self.steps = steps
    }

    /// The capture file's bytes.
    public func render() -> [UInt8] {
        var renderer = SessionRenderer(session: self)
        for step in steps { renderer.perform(step) }
        return renderer.writer.bytes
    }
}
