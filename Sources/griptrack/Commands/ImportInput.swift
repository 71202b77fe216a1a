import Foundation
import GripSystem
import GripAnalysis
import GripImport

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

    /// A path, opened: a CSV file is read as it streams (it may be long); a bundle's files are small and kept.
    enum Opened {
        case csv(path: String)
        case bundle(name: String, info: NamedFile, dataSets: [NamedFile])
    }

    /// Bytes read from a file as the parser asks for them, so a long export is never held whole.
    struct FileChunks: ImportByteSource {
        let handle: FileHandle
        let path: String

        mutating func nextChunk() throws -> [UInt8]? {
            let data: Data?
            do {
                data = try handle.read(upToCount: 1 << 16)
            } catch {
                throw Failure.unreadable("cannot read \(path): \(error.localizedDescription)")
            }
            guard let data, !data.isEmpty else { return nil }
            return Array(data)
        }
    }

    /// Opens one path: a folder or a zip is read as a repeaters bundle (its files checked and inflated within
    /// ``ZipArchive/Limits/repeatersBundle``); anything else is a CSV file, read later by ``read(_:interruption:sample:)``.
    static func open(_ path: String) throws(Failure) -> Opened {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadable("cannot read \(path): no such file or directory")
        }
        do {
            if isDirectory.boolValue { return try folder(path) }
            let file = try handle(path)
            defer { try? file.close() }
            let magic = (try? file.read(upToCount: 4)).map { Array($0) } ?? []
            // A zip starts with a local file header, `PK\u{3}\u{4}`, whatever its name.
            if magic == [0x50, 0x4B, 0x03, 0x04] || path.lowercased().hasSuffix(".zip") {
                return try zip(path, handle: file)
            }
            return .csv(path: path)
        } catch let error as GripImportError {
            throw .invalid(error)
        } catch let error as Failure {
            throw error
        } catch {
            throw .unreadable("cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// Parses an opened path, handing each sample on as it is read.
    static func read(
        _ opened: Opened, interruption: () -> Void = {}, sample: (ForceSample) -> Void
    ) throws(Failure) -> TindeqExport {
        do {
            switch opened {
            case .csv(let path):
                let file = try handle(path)
                defer { try? file.close() }
                return try TindeqExport.read(
                    FileChunks(handle: file, path: path), fileName: path, interruption: interruption, sample: sample)
            case .bundle(let name, let info, let dataSets):
                return try TindeqExport.readRepeaters(
                    bundle: name, info: info, dataSets: dataSets, interruption: interruption, sample: sample)
            }
        } catch let error as GripImportError {
            throw .invalid(error)
        } catch let error as Failure {
            throw error
        } catch {
            throw .unreadable("cannot read \(opened.name): \(error.localizedDescription)")
        }
    }

    /// ``ImportDigest`` of what was opened: a CSV file read once more as it streams, or a bundle's files.
    static func contentDigest(_ opened: Opened) throws(Failure) -> String {
        switch opened {
        case .csv(let path):
            var digest = ImportDigest()
            do {
                let file = try handle(path)
                defer { try? file.close() }
                var chunks = FileChunks(handle: file, path: path)
                while let chunk = try chunks.nextChunk() { digest.update(chunk) }
            } catch let error as Failure {
                throw error
            } catch {
                throw .unreadable("cannot read \(path): \(error.localizedDescription)")
            }
            return digest.finalized()
        case .bundle(_, let info, let dataSets):
            return ImportDigest(info: info, dataSets: dataSets).finalized()
        }
    }

    private static func handle(_ path: String) throws -> FileHandle {
        // A FIFO or a device would block `open` (or the first read) until something writes to it.
        guard FileKind(path: path) == .regular else {
            throw Failure.unreadable("cannot read \(path): not a regular file (a FIFO, socket or device); export the data to a file")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Failure.unreadable("cannot read \(path): permission denied or not a regular file")
        }
        return handle
    }

    /// An unzipped repeaters bundle: `info.csv` and `data_set_N.csv` in one folder.
    private static func folder(_ path: String) throws -> Opened {
        let names = try FileManager.default.contentsOfDirectory(atPath: path)
        let base = URL(fileURLWithPath: path)
        return try bundle(path, paths: names) { name in
            let file = base.appendingPathComponent(name).path
            let opened = try handle(file)
            defer { try? opened.close() }
            // A data set is small; one larger than a zip entry may be is not one (the same limit as in a zip).
            let data = try opened.read(upToCount: ZipArchive.Limits.repeatersBundle.entryBytes + 1) ?? Data()
            guard data.count <= ZipArchive.Limits.repeatersBundle.entryBytes else {
                throw GripImportError(
                    file: file, line: nil,
                    "larger than the \(ZipArchive.Limits.repeatersBundle.entryBytes >> 20) MiB a data set can hold: it is not an export")
            }
            return Array(data)
        }
    }

    /// A zipped repeaters bundle, read whole (a bundle is small; a larger file is refused before it is read) and
    /// checked by ``ZipArchive`` before anything is inflated.
    private static func zip(_ path: String, handle: FileHandle) throws -> Opened {
        let limit = ZipArchive.Limits.repeatersBundle.totalBytes
        try handle.seek(toOffset: 0)
        let data = try handle.read(upToCount: limit + 1) ?? Data()
        guard data.count <= limit else {
            throw GripImportError(file: path, line: nil, "larger than the \(limit >> 20) MiB a repeaters bundle can hold: it is not an export")
        }
        let bytes = Array(data)
        let entries = try ZipArchive.entries(bytes, file: path)
        return try bundle(path, paths: entries.map(\.path)) { name in
            guard let entry = entries.first(where: { $0.path == name }) else { return [] }
            return try ZipArchive.contents(of: entry, in: bytes, file: path)
        }
    }

    private static func bundle(_ path: String, paths: [String], read: (String) throws -> [UInt8]) throws -> Opened {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        let layout = try RepeatersBundle.arrange(paths, bundle: trimmed)
        return .bundle(
            name: trimmed, info: NamedFile(name: "\(trimmed)/\(layout.info)", bytes: try read(layout.info)),
            dataSets: try layout.dataSets.map { NamedFile(name: "\(trimmed)/\($0)", bytes: try read($0)) })
    }
}

extension ImportInput.Opened {
    /// The path as the user gave it.
    var name: String {
        switch self {
        case .csv(let path): path
        case .bundle(let name, _, _): name
        }
    }
}
