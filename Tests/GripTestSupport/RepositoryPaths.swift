import Foundation

/// Paths inside the repository, found from this file's location so tests run from any working directory.
public enum RepositoryPaths {
    /// The repository root.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `captures/`.
    public static var captures: URL { root.appendingPathComponent("captures") }

    /// Every `*.btsnoop` under `captures/` (recursively), sorted by path.
    public static func allCaptures() -> [URL] {
        let enumerator = FileManager.default.enumerator(at: captures, includingPropertiesForKeys: nil)
        let files = (enumerator?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "btsnoop" }
        return files.sorted { $0.path < $1.path }
    }

    /// Whether golden files should be rewritten instead of compared (`GRIPTRACK_UPDATE_GOLDEN=1`).
    public static var updateGolden: Bool { ProcessInfo.processInfo.environment["GRIPTRACK_UPDATE_GOLDEN"] == "1" }
}
