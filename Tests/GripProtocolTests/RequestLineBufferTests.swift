import Foundation
import Testing

import GripProtocol

@Suite("Request lines")
struct RequestLineBufferTests {
    static func lines(_ text: String, limit: Int = 16, pieceSize: Int) -> [RequestLineBuffer.Line] {
        var buffer = RequestLineBuffer(limit: limit)
        var lines: [RequestLineBuffer.Line] = []
        let bytes = Array(text.utf8)
        for start in stride(from: 0, to: bytes.count, by: pieceSize) {
            buffer.append(bytes[start..<min(bytes.count, start + pieceSize)])
            while let line = buffer.nextLine() {
                lines.append(line)
                if line == .oversized { return lines }  // the daemon closes the connection
            }
        }
        return lines
    }

    @Test("lines come out whole, without CR LF, however the bytes arrive", arguments: [1, 2, 5, 100])
    func linesAreSplitAtNewlines(pieceSize: Int) {
        #expect(Self.lines("{\"a\":1}\r\n\n x\npartial", pieceSize: pieceSize) == [
            .line(Array("{\"a\":1}".utf8)), .line([]), .line(Array(" x".utf8)),
        ])
    }

    @Test("a line over the limit is oversized, finished or not", arguments: [1, 7, 100])
    func longLinesAreOversized(pieceSize: Int) {
        #expect(Self.lines(String(repeating: "x", count: 16) + "\n", pieceSize: pieceSize) == [
            .line(Array(String(repeating: "x", count: 16).utf8)),
        ])
        #expect(Self.lines(String(repeating: "x", count: 17) + "\n", pieceSize: 100) == [.oversized])
        #expect(Self.lines(String(repeating: "x", count: 17), pieceSize: pieceSize).last == .oversized)
    }
}
