/// The ordinary least-squares line through points: the slope trends give (`docs/metrics.md`, "Trends"). Pure.
public enum LeastSquares {
    /// The slope of the least-squares line of `y` on `x`.
    ///
    /// x is taken relative to the first point before summing, so a shift of every x by the same amount (tests
    /// dated a year later, times in Unix seconds) leaves the slope as it was instead of losing digits to
    /// x values of 10⁹ squared.
    ///
    /// - Parameter points: `(x, y)` pairs in any order.
    /// - Returns: Δy per unit of x; nil with fewer than two distinct x (no line is defined) or a non-finite value.
    public static func slope(_ points: [(x: Double, y: Double)]) -> Double? {
        guard let origin = points.first?.x, points.count >= 2 else { return nil }
        let n = Double(points.count)
        let meanX = points.reduce(0.0) { $0 + ($1.x - origin) } / n
        let meanY = points.reduce(0.0) { $0 + $1.y } / n
        var sxx = 0.0
        var sxy = 0.0
        for point in points {
            let dx = point.x - origin - meanX
            sxx += dx * dx
            sxy += dx * (point.y - meanY)
        }
        guard sxx > 0 else { return nil }
        let slope = sxy / sxx
        return slope.isFinite ? slope : nil
    }

    /// Seconds in the week every trend's slope is given per.
    public static let secondsPerWeek = 7.0 * 86_400

    /// The shortest span a trend's slope is drawn over: tests less than a day apart say nothing about a week (two
    /// tests minutes apart made millions of kilograms a week of one noisy difference). The rule of every slope
    /// griptrack shows: `trends`' top line, its per-group table, `stats` and the plots.
    public static let minimumTrendSpanSeconds = 86_400.0

    /// The least-squares slope per week of values against their times, or nil when the points span less than
    /// ``minimumTrendSpanSeconds`` (or give no line).
    ///
    /// - Parameter points: `(seconds, value)` pairs in any order, seconds on any fixed time base.
    public static func weeklySlope(_ points: [(seconds: Double, value: Double)]) -> Double? {
        guard let first = points.lazy.map(\.seconds).min(), let last = points.lazy.map(\.seconds).max(),
              last - first >= minimumTrendSpanSeconds
        else { return nil }
        return slope(points.map { (x: $0.seconds, y: $0.value) }).map { $0 * secondsPerWeek }
    }
}
