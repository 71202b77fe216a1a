import Glibc
import Testing

@testable import GripBlueZ
import GripTestSupport

@Suite("D-Bus marshalling through a real dbus-daemon", .serialized, .timeLimit(.minutes(1)), .enabled(if: FakeBlueZ.enabled, FakeBlueZ.skipMessage))
struct MarshallingTests {
    static let samples: [DBusValue] = [
        .byte(0), .byte(255), .boolean(true), .boolean(false),
        .int16(.min), .uint16(.max), .int32(-123_456), .uint32(.max), .int64(.min), .uint64(.max),
        .double(-0.5), .double(1e300),
        .string(""), .string("grüße, ✓"), .objectPath("/org/bluez/hci0/dev_F0_0D_CA_FE_12_34"), .signature("a{sv}"),
        .bytes([]), .bytes([0x01, 0x00, 0xff, 0x65]),
        .strings([]), .strings(["7e4e1701-1ea6-40c9-9dcc-13d34ffead57", "x"]),
        .array(elementSignature: "o", [.objectPath("/a"), .objectPath("/b")]),
        .array(elementSignature: "ay", [.bytes([1]), .bytes([])]),
        .properties([:]),
        .properties(["Transport": .string("le"), "RSSI": .int16(-60), "UUIDs": .strings(["a", "b"]),
                     "Nested": .properties(["Value": .bytes([9, 8])])]),
        .dictionary(keySignature: "q", valueSignature: "v", [DBusDictionaryEntry(.uint16(0x0d), .variant(.bytes([1, 2])))]),
        .dictionary(keySignature: "o", valueSignature: "a{sa{sv}}", [
            DBusDictionaryEntry(.objectPath("/org/bluez/hci0"), .dictionary(keySignature: "s", valueSignature: "a{sv}", [
                DBusDictionaryEntry(.string("org.bluez.Adapter1"), .properties(["Powered": .boolean(true)])),
            ])),
        ]),
        .structure([.bytes([0x65]), .string("request")]),
        .variant(.variant(.int32(7))),
    ]

    @Test("every value type survives a round trip through the fake's Echo method")
    func roundTrip() async throws {
        let fake = try FakeBlueZ()
        defer { fake.stop() }
        let sent = Self.samples.map(DBusValue.variant)
        let reply = try await fake.mock("Echo", .array(elementSignature: "v", sent))
        #expect(reply == [.array(elementSignature: "v", sent)])
    }

    @Test("a unix fd sent to the fake comes back as a working descriptor we own")
    func fileDescriptorRoundTrip() async throws {
        let fake = try FakeBlueZ()
        defer { fake.stop() }
        var fds: [Int32] = [-1, -1]
        #expect(fds.withUnsafeMutableBufferPointer { pipe($0.baseAddress) } == 0)
        defer { close(fds[0]); close(fds[1]) }

        let reply = try await fake.mock("EchoFd", .unixFD(fds[1]))
        guard case .unixFD(let returned)? = reply.first else {
            Issue.record("EchoFd returned \(reply)")
            return
        }
        defer { close(returned) }
        #expect(returned != fds[1])
        var byte: UInt8 = 0x42
        #expect(write(returned, &byte, 1) == 1)
        var read: UInt8 = 0
        #expect(Glibc.read(fds[0], &read, 1) == 1)
        #expect(read == 0x42)
    }

    @Test("a value with a mismatched element type is refused before anything is sent")
    func invalidValuesAreRefused() async throws {
        let fake = try FakeBlueZ()
        defer { fake.stop() }
        await #expect(throws: GripBlueZError.invalidArgument(member: "Echo")) {
            try await fake.control.call("org.bluez", "/", "org.freedesktop.DBus.Mock", "Echo",
                                        [.array(elementSignature: "v", [.int32(1)])])
        }
        await #expect(throws: GripBlueZError.invalidArgument(member: "Echo")) {
            try await fake.control.call("org.bluez", "/", "org.freedesktop.DBus.Mock", "Echo",
                                        [.array(elementSignature: "v", [.variant(.objectPath("not a path"))])])
        }
    }

    @Test("a D-Bus error reply keeps its error name and message")
    func errorReplies() async throws {
        let fake = try FakeBlueZ()
        defer { fake.stop() }
        do {
            _ = try await fake.control.call("org.bluez", "/org/bluez/hci0", "org.bluez.Adapter1", "StopDiscovery")
            Issue.record("StopDiscovery without a session succeeded")
        } catch {
            #expect(error == .methodFailed(member: "StopDiscovery", path: "/org/bluez/hci0",
                                           dbusError: "org.bluez.Error.NotAuthorized", message: "Operation Not Authorized"))
        }
    }
}
