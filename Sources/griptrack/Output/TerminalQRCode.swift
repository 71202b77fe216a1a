import CQREncode
import Glibc

/// A QR code for a terminal, drawn with Unicode half blocks (two modules per character cell), from libqrencode.
enum TerminalQRCode {
    /// The QR code of `text`, with a quiet zone of 2 modules; nil when libqrencode cannot encode it.
    /// - Parameter colored: wrap each line in ANSI black-on-white, so the code scans on a dark terminal too.
    static func render(_ text: String, colored: Bool) -> String? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = code.pointee.data!
        let quiet = 2
        let size = width + 2 * quiet
        // Bit 0 of each byte says whether the module is dark.
        func dark(_ row: Int, _ column: Int) -> Bool {
            let r = row - quiet, c = column - quiet
            guard r >= 0, r < width, c >= 0, c < width else { return false }
            return data[r * width + c] & 1 == 1
        }
        var lines: [String] = []
        for row in stride(from: 0, to: size, by: 2) {
            var line = colored ? "\u{1B}[30;47m" : ""
            for column in 0..<size {
                // Colored: dark modules in black on white. Plain: dark modules drawn with blocks.
                let top = dark(row, column), bottom = row + 1 < size && dark(row + 1, column)
                switch (top, bottom) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line + (colored ? "\u{1B}[0m" : ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
