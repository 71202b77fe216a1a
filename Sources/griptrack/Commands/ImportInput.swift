import Foundation
import GripImport
import ZIPFoundation

/// Reads what `griptrack import` is given — a CSV file, a repeaters bundle as a zip, or its unzipped folder — and
/// hands the bytes to the parser. The only place the import touches the file system.
enum ImportInput {
    /// What went wrong reading a path.
    enum Failure: Error {
        /// The path cannot be read at all (exit 1).
        case unreadable(String)
        /// The contents are not an export (exit 5).
        case invalid(GripImportError)
    }

    /// Reads and parses one path.
    static func read(_ path: String) throws(Failure) -> TindeqExport {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadable("cannot read \(path): no such file or directory")
        }
        do {
            if isDirectory.boolValue { return try folder(path) }
            let bytes = try contents(path)
            // A zip starts with a local file header, `PK\u{3}\u{4}`, whatever its name.
            if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || path.lowercased().hasSuffix(".zip") {
                return try zip(path)
            }
            return try TindeqExport.parse(bytes, fileName: path)
        } catch let error as GripImportError {
            throw .invalid(error)
        } catch let error as Failure {
            throw error
        } catch {
            throw .unreadable("cannot read \(path): \(error.localizedDescription)")
        }
    }

    private static func contents(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure.unreadable("cannot read \(path): permission denied or not a regular file")
        }
        return Array(data)
    }

    /// An unzipped repeaters bundle: `info.csv` and `data_set_N.csv` in one folder.
    private static func folder(_ path: String) throws -> TindeqExport {
        let names = try FileManager.default.contentsOfDirectory(atPath: path)
        let base = URL(fileURLWithPath: path)
        return try bundle(path, names: names) { name in
            try contents(base.appendingPathComponent(name).path)
        }
    }

    /// A zipped repeaters bundle; entries are matched by their last path component (zips made by hand often hold a
    /// folder), and macOS's `__MACOSX/` shadow entries are left out.
    private static func zip(_ path: String) throws -> TindeqExport {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw GripImportError(file: path, line: nil, "not a readable zip archive (\(error))")
        }
        var entries: [String: Entry] = [:]
        for entry in archive where entry.type == .file && !entry.path.hasPrefix("__MACOSX/") {
            let name = (entry.path as NSString).lastPathComponent
            if entries[name] == nil { entries[name] = entry }
        }
        return try bundle(path, names: Array(entries.keys)) { name in
            guard let entry = entries[name] else { return [] }
            var bytes: [UInt8] = []
            do {
                _ = try archive.extract(entry) { chunk in bytes.append(contentsOf: chunk) }
            } catch {
                throw GripImportError(file: "\(path)/\(entry.path)", line: nil, "cannot be extracted: the zip is damaged (\(error))")
            }
            return bytes
        }
    }

    private static func bundle(_ path: String, names: [String], read: (String) throws -> [UInt8]) throws -> TindeqExport {
        guard names.contains("info.csv") else {
            throw GripImportError(
                file: path, line: nil, "not a repeaters bundle: no info.csv (found \(names.sorted().prefix(5).joined(separator: ", ")))")
        }
        // data_set_2 before data_set_10: by number, not by name.
        let sets = names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("data_set_"), name.hasSuffix(".csv"),
                let number = Int(name.dropFirst("data_set_".count).dropLast(".csv".count))
            else { return nil }
            return (number, name)
        }.sorted { $0.0 < $1.0 }
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        return try TindeqExport.parseRepeaters(
            bundle: trimmed, info: NamedFile(name: "\(trimmed)/info.csv", bytes: try read("info.csv")),
            dataSets: try sets.map { NamedFile(name: "\(trimmed)/\($0.1)", bytes: try read($0.1)) })
    }
}
