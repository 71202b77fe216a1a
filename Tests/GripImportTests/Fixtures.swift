import Foundation
import GripImport

/// The fixtures in `Fixtures/` (see its README: synthetic tests written by us in the app's layouts).
enum ImportFixtures {
    static let directory: URL = {
        if let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) { return url }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    }()

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func parse(_ name: String) throws -> TindeqExport {
        try TindeqExport.parse(try bytes(name), fileName: name)
    }

    static func repeatersFolder() throws -> TindeqExport {
        try TindeqExport.parseRepeaters(
            bundle: "repeaters",
            info: NamedFile(name: "repeaters/info.csv", bytes: try bytes("repeaters/info.csv")),
            dataSets: try (1...2).map { NamedFile(name: "repeaters/data_set_\($0).csv", bytes: try bytes("repeaters/data_set_\($0).csv")) })
    }

    /// The error a malformed text gives (or a test failure message when it parses).
    static func error(_ text: String, file: String = "bad.csv") -> String {
        do {
            _ = try TindeqExport.parse(Array(text.utf8), fileName: file)
            return "parsed without an error"
        } catch {
            return error.description
        }
    }
}
