import Foundation
import Testing

@testable import griptrack

/// `griptrack capture` writes BlueZ's HCI socket constants out in Swift (`HCISocketABI`, why in its comment): they
/// must stay what the installed headers say (libbluetooth-dev, installed by scripts/setup).
@Suite("HCI socket ABI")
struct MonitorSocketABITests {
    /// `#define NAME VALUE` lines of a header, by name.
    static func defines(_ path: String) throws -> [String: String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("#define ") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.count >= 3 { values[String(fields[1])] = String(fields[2]) }
        }
        return values
    }

    @Test("the constants and sockaddr_hci match <bluetooth/bluetooth.h> and <bluetooth/hci.h>")
    func matchesHeaders() throws {
        let bluetooth = try Self.defines("/usr/include/bluetooth/bluetooth.h")
        let hci = try Self.defines("/usr/include/bluetooth/hci.h")
        #expect(bluetooth["AF_BLUETOOTH"].flatMap { Int32($0) } == HCISocketABI.addressFamily)
        #expect(bluetooth["BTPROTO_HCI"].flatMap { Int32($0) } == HCISocketABI.protocolHCI)
        #expect(hci["HCI_DEV_NONE"].flatMap { UInt16($0.dropFirst(2), radix: 16) } == HCISocketABI.deviceNone)
        #expect(hci["HCI_CHANNEL_MONITOR"].flatMap { UInt16($0) } == HCISocketABI.channelMonitor)
        // struct sockaddr_hci { sa_family_t hci_family; unsigned short hci_dev; unsigned short hci_channel; }
        let header = try String(contentsOfFile: "/usr/include/bluetooth/hci.h", encoding: .utf8)
        let fields = header.components(separatedBy: "struct sockaddr_hci {").dropFirst().first?
            .components(separatedBy: "};").first?
            .split(whereSeparator: { $0 == ";" || $0 == "\n" })
            .map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ") }
            .filter { !$0.isEmpty }
        #expect(fields == ["sa_family_t hci_family", "unsigned short hci_dev", "unsigned short hci_channel"])
        #expect(MemoryLayout<HCISocketABI.Address>.size == 6)
        #expect(MemoryLayout<HCISocketABI.Address>.offset(of: \.device) == 2)
        #expect(MemoryLayout<HCISocketABI.Address>.offset(of: \.channel) == 4)
    }
}
