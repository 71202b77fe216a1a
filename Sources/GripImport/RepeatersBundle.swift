/// Which files of a repeaters bundle (a zip's entries or a folder's files) are its `info.csv` and its data sets.
package enum RepeatersBundle {
    /// The bundle's `info.csv` and data sets, by path.
    package struct Layout: Sendable, Equatable {
        /// The path of `info.csv`.
        package var info: String
        /// The data sets' paths in set order (`data_set_2` before `data_set_10`).
        package var dataSets: [String]
    }

    /// Finds `info.csv` and one `data_set_N.csv` per set among `paths`, matched by their last path component (a
    /// zip made by hand often holds a folder); macOS's `__MACOSX/` shadow entries are left out. The set number is N
    /// as a number, so `data_set_1.csv`, `data_set_01.csv` and `a/data_set_1.csv` are all set 1: two of them in one
    /// bundle are refused, naming both, rather than one being taken and the other dropped.
    ///
    /// - Parameters:
    ///   - paths: Every file of the bundle, relative to it.
    ///   - bundle: The zip's or folder's name, for errors.
    /// - Returns: The layout.
    /// - Throws: ``GripImportError`` when there is no `info.csv`, or two files claim the same role.
    package static func arrange(_ paths: [String], bundle: String) throws(GripImportError) -> Layout {
        var info: String? = nil
        var sets: [Int: String] = [:]
        for path in paths.sorted() where !path.hasPrefix("__MACOSX/") {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            if name == "info.csv" {
                if let info { throw duplicate(info, path, "both the bundle's info.csv", bundle: bundle) }
                info = path
            } else if let number = setNumber(name) {
                if let other = sets[number] { throw duplicate(other, path, "both set \(number)", bundle: bundle) }
                sets[number] = path
            }
        }
        guard let info else {
            let names = paths.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
            throw GripImportError(
                file: bundle, line: nil,
                "not a repeaters bundle: no info.csv (found \(names.sorted().prefix(5).joined(separator: ", ")))")
        }
        return Layout(info: info, dataSets: sets.keys.sorted().compactMap { sets[$0] })
    }

    /// N of `data_set_N.csv` (digits only).
    static func setNumber(_ name: String) -> Int? {
        guard name.hasPrefix("data_set_"), name.hasSuffix(".csv") else { return nil }
        let digits = name.dropFirst("data_set_".count).dropLast(".csv".count)
        guard !digits.isEmpty, digits.count <= 9, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(digits)
    }

    private static func duplicate(_ first: String, _ second: String, _ what: String, bundle: String) -> GripImportError {
        GripImportError(
            file: bundle, line: nil,
            "\(first) and \(second) are \(what): keep one of them (rename or remove the other) and import again")
    }
}
