import GripTestSupport
import GripWire
import Testing

/// `CaptureFilter`: with `--device`, only that device's frames (and the adapter's own) are kept.
@Suite("capture filter")
struct CaptureFilterTests {
    typealias Fixtures = MonitorFrameFixtures
    static let device = Fixtures.progressor
    static let deviceWire = Array(Fixtures.progressor.reversed())
    static let strangerWire = Array(Fixtures.stranger.reversed())

    static func frame(_ opcode: MonitorOpcode, _ payload: [UInt8], index: UInt16 = 0) -> MonitorFrame {
        MonitorFrame(opcode: opcode, index: index, payload: payload)
    }

    static func connectionComplete(_ handle: UInt16, peer wire: [UInt8], subevent: UInt8 = 0x01) -> MonitorFrame {
        frame(.event, Fixtures.event(0x3E, [subevent, 0x00] + Fixtures.le(handle) + [0x00, 0x00] + wire
            + [0x18, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00]))
    }

    static func advert(_ reports: [[UInt8]]) -> MonitorFrame {
        // Each report: type, address type, address and data length (given), 2 bytes of data, RSSI.
        let body: [UInt8] = reports.flatMap { report -> [UInt8] in [0x00, 0x00] + report + [0x01, 0x06, 0xC4] }
        return frame(.event, Fixtures.event(0x3E, [0x02, UInt8(reports.count)] + body))
    }

    @Test("without a device every frame is kept unchanged, malformed ones included")
    func noDeviceKeepsAll() {
        var filter = CaptureFilter()
        for frame in Fixtures.strangerTraffic(startMicros: 0) {
            let parsed = try? MonitorFrame(parsing: frame.bytes)
            #expect(parsed.map { filter.filter($0) } == parsed)
        }
        #expect(filter.filter(Self.frame(.event, [0x3E])) == Self.frame(.event, [0x3E]))
        #expect(filter.malformedPackets == 0)
    }

    @Test("--index keeps one adapter and drops frames about no adapter")
    func adapterIndex() {
        var filter = CaptureFilter(adapter: 1)
        #expect(filter.filter(Self.frame(.aclReceived, [0x40, 0x20, 0x00, 0x00], index: 1)) != nil)
        #expect(filter.filter(Self.frame(.aclReceived, [0x40, 0x20, 0x00, 0x00], index: 0)) == nil)
        #expect(filter.filter(Self.frame(.systemNote, Array("hello\0".utf8), index: 0xFFFF)) == nil)
    }

    @Test("the device's connection is followed to its disconnection; the stranger's never appears")
    func followsTheDevicesConnection() {
        var filter = CaptureFilter(device: Self.device)
        #expect(filter.filter(Self.frame(.newIndex, [0x00, 0x01] + [1, 2, 3, 4, 5, 6] + Array("hci0\0\0\0\0".utf8)))
            != nil)
        #expect(filter.filter(Self.frame(.indexInfo, [1, 2, 3, 4, 5, 6, 0x0F, 0x00])) != nil)
        #expect(filter.filter(Self.connectionComplete(0x0077, peer: Self.strangerWire)) == nil)
        #expect(filter.filter(Self.connectionComplete(0x0040, peer: Self.deviceWire, subevent: 0x0A)) != nil)
        #expect(filter.connections(on: 0) == [0x0040])
        let ours = Fixtures.acl(handle: 0x0040, boundary: 0b10, att: [0x1B, 0x0E, 0x00, 0x01])
        let theirs = Fixtures.acl(handle: 0x0077, boundary: 0b10, att: [0x1B, 0x25, 0x00, 0x3C])
        #expect(filter.filter(Self.frame(.aclReceived, ours)) != nil)
        #expect(filter.filter(Self.frame(.aclReceived, theirs)) == nil)
        #expect(filter.filter(Self.frame(.aclReceived, ours, index: 1)) == nil)  // same handle, other adapter
        #expect(filter.filter(Self.frame(.event, Fixtures.event(0x05, [0x00, 0x77, 0x00, 0x13]))) == nil)
        #expect(filter.filter(Self.frame(.event, Fixtures.event(0x05, [0x00, 0x40, 0x00, 0x13]))) != nil)
        #expect(filter.connections(on: 0) == [])
        // After the disconnection the handle may be reused by anyone: it is no longer the device's.
        #expect(filter.filter(Self.frame(.aclReceived, ours)) == nil)
        #expect(filter.malformedPackets == 0)
    }

    @Test("commands are kept when they name the device or its handle, with their Command Status")
    func commands() {
        var filter = CaptureFilter(device: Self.device)
        let create = { (wire: [UInt8]) in
            Self.frame(.command, Fixtures.command(0x200D, [0x60, 0x00, 0x60, 0x00, 0x00, 0x00] + wire + [0x00]))
        }
        let extended = Self.frame(.command, Fixtures.command(0x2043, [0x00, 0x00, 0x00] + Self.deviceWire + [0x01]))
        let status = Self.frame(.event, Fixtures.event(0x0F, [0x00, 0x01, 0x0D, 0x20]))
        #expect(filter.filter(create(Self.strangerWire)) == nil)
        #expect(filter.filter(status) == nil)  // answers the stranger's command
        #expect(filter.filter(create(Self.deviceWire)) != nil)
        #expect(filter.filter(status) != nil)
        #expect(filter.filter(extended) != nil)
        _ = filter.filter(Self.connectionComplete(0x0040, peer: Self.deviceWire))
        #expect(filter.filter(Self.frame(.command, Fixtures.command(0x0406, [0x40, 0x00, 0x13]))) != nil)
        #expect(filter.filter(Self.frame(.command, Fixtures.command(0x0406, [0x77, 0x00, 0x13]))) == nil)
        // Read RSSI's Command Complete names its handle: the stranger's answer is dropped whatever the order.
        #expect(filter.filter(Self.frame(.command, Fixtures.command(0x1405, [0x40, 0x00]))) != nil)
        #expect(filter.filter(Self.frame(.event, Fixtures.event(0x0E, [0x01, 0x05, 0x14, 0x00, 0x77, 0x00, 0xC4])))
            == nil)
        #expect(filter.filter(Self.frame(.event, Fixtures.event(0x0E, [0x01, 0x05, 0x14, 0x00, 0x40, 0x00, 0xC4])))
            != nil)
        // Commands naming nothing (scan parameters, reset) are dropped.
        #expect(filter.filter(Self.frame(.command, Fixtures.command(0x0C03, []))) == nil)
    }

    @Test("an advertising report listing several advertisers is rewritten to the device's reports")
    func mixedAdvertisingReport() throws {
        var filter = CaptureFilter(device: Self.device)
        let ours = Self.deviceWire + [0x02]
        let theirs = Self.strangerWire + [0x02]
        #expect(filter.filter(Self.advert([theirs])) == nil)
        #expect(filter.filter(Self.advert([ours])) == Self.advert([ours]))
        let mixed = filter.filter(Self.advert([theirs, ours, theirs]))
        let rewritten = try #require(mixed)
        #expect(rewritten == Self.advert([ours]))
        #expect(!Fixtures.contains(rewritten.payload, Self.strangerWire))
        // Directed (16-byte reports) and extended reports are read by their own layouts.
        let directed = Self.frame(.event, Fixtures.event(0x3E, [0x0B, 0x01, 0x01, 0x00] + Self.deviceWire
            + [0x00, 1, 2, 3, 4, 5, 6, 0xC4]))
        #expect(filter.filter(directed) == directed)
        let extendedReports = Fixtures.strangerTraffic(startMicros: 0).compactMap { try? MonitorFrame(parsing: $0.bytes) }
            .filter { $0.payload.starts(with: [0x3E]) && $0.payload.count > 2 && $0.payload[2] == 0x0D }
        #expect(extendedReports.count == 1)
        #expect(extendedReports.compactMap { filter.filter($0) }.isEmpty)
        #expect(filter.malformedPackets == 0)
    }

    @Test("Number Of Completed Packets keeps only the device's handles")
    func completedPackets() throws {
        var filter = CaptureFilter(device: Self.device)
        _ = filter.filter(Self.connectionComplete(0x0040, peer: Self.deviceWire))
        let both = Self.frame(.event, Fixtures.event(0x13, [0x02, 0x77, 0x00, 0x03, 0x00, 0x40, 0x00, 0x01, 0x00]))
        let kept = filter.filter(both)
        let rewritten = try #require(kept)
        #expect(rewritten.payload == Fixtures.event(0x13, [0x01, 0x40, 0x00, 0x01, 0x00]))
        #expect(filter.filter(Self.frame(.event, Fixtures.event(0x13, [0x01, 0x77, 0x00, 0x03, 0x00]))) == nil)
    }

    @Test("packets too short to inspect are dropped and counted, never trapped")
    func malformedPacketsAreCounted() {
        var filter = CaptureFilter(device: Self.device)
        let broken: [MonitorFrame] = [
            Self.frame(.event, []), Self.frame(.event, [0x3E]), Self.frame(.event, [0x3E, 0x05, 0x02]),
            Self.frame(.event, Fixtures.event(0x3E, [0x02, 0x03, 0x00])),
            Self.frame(.event, Fixtures.event(0x3E, [0x01, 0x00, 0x40])),
            Self.frame(.event, Fixtures.event(0x13, [0x02, 0x40, 0x00])),
            Self.frame(.command, [0x0D]), Self.frame(.command, Fixtures.command(0x200D, [0x60])),
            Self.frame(.aclReceived, [0x40]),
        ]
        for frame in broken { #expect(filter.filter(frame) == nil) }
        #expect(filter.malformedPackets == broken.count)
    }

    @Test("addresses parse with colons or dashes, in either case")
    func addressParsing() {
        #expect(CaptureFilter.address("f4:d3:6b:4a:17:19") == Self.device)
        #expect(CaptureFilter.address("F4-D3-6B-4A-17-19") == Self.device)
        #expect(CaptureFilter.address("F4:D3:6B:4A:17") == nil)
        #expect(CaptureFilter.address("F4:D3:6B:4A:17:1G") == nil)
        #expect(CaptureFilter.address("F4D3:6B:4A:17:19:00") == nil)
    }
}
