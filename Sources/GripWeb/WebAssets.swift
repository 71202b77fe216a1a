import HTTPTypes
import Hummingbird

/// The app's own files, compiled into the binary (SwiftPM's `embedInCode`): the web app needs no installed files,
/// no CDN and no build step, and no name from a URL is ever looked up on disk: only the names below exist.
enum WebAssets {
    private static let table: [String: (bytes: [UInt8], type: String)] = [
        "index.html": (PackageResources.index_html, "text/html; charset=utf-8"),
        "history.html": (PackageResources.history_html, "text/html; charset=utf-8"),
        "app.css": (PackageResources.app_css, "text/css; charset=utf-8"),
        "common.js": (PackageResources.common_js, "text/javascript; charset=utf-8"),
        "live.js": (PackageResources.live_js, "text/javascript; charset=utf-8"),
        "history.js": (PackageResources.history_js, "text/javascript; charset=utf-8"),
        "training.js": (PackageResources.training_js, "text/javascript; charset=utf-8"),
    ]

    /// The asset called `name`, or nil (404) for any other name.
    static func response(named name: String) -> Response? {
        guard let asset = table[name] else { return nil }
        return Response(
            status: .ok,
            headers: [
                .contentType: asset.type, .cacheControl: "no-cache",
                // Only this origin's scripts, styles and connections; no frames (clickjacking), no plug-ins.
                .contentSecurityPolicy:
                    "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                HTTPField.Name("Referrer-Policy")!: "no-referrer",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }
}
