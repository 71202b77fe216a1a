import Foundation

/// Where the repository's capture fixtures live, found relative to this source file (no working-directory
/// assumptions).
public enum CaptureFixtures {
    /// The repository root (two levels above `Tests/GripTestSupport/`).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `captures/` at the repository root.
    public static let capturesDirectory: URL = repositoryRoot.appendingPathComponent("captures", isDirectory: true)

    /// A file under `captures/`, e.g. `third-party/revcar-android-h4.btsnoop`.
    public static func url(_ relativePath: String) -> URL {
        capturesDirectory.appendingPathComponent(relativePath)
    }

    /// The bytes of a file under `captures/`.
    /// - Throws: when the file cannot be read.
    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url(relativePath)))
    }

    /// Every `*.btsnoop` file under `captures/`, recursively, sorted by path.
    public static func allBtsnoopFiles() -> [URL] {
        let enumerator = FileManager.default.enumerator(
            at: capturesDirectory, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        var files: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "btsnoop" { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }
}

extension CaptureFixtures {
    /// Whether golden files should be rewritten instead of compared (`GRIPTRACK_UPDATE_GOLDEN=1`).
    public static var updateGolden: Bool { ProcessInfo.processInfo.environment["GRIPTRACK_UPDATE_GOLDEN"] == "1" }
}
