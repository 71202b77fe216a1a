/// A Bluetooth device address as BlueZ and people write it: `AA:BB:CC:DD:EE:FF`, six pairs of hex digits separated
/// by colons, either case. The one rule for `[device] address` and every `--device` option (griptrackd's, `record`'s
/// and `calibrate`'s), so a value one door takes is never refused by another.
package enum BluetoothAddress {
    /// Whether `text` is such an address.
    package static func isValid(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }

    /// What an option says when its value is not an address.
    package static func refusal(option: String, got text: String) -> String {
        "\(option) takes a Bluetooth address such as F0:0D:CA:FE:12:34 (six hex pairs separated by colons; "
            + "`griptrack devices --scan 5` lists them), got \"\(text)\"."
    }
}
