import Foundation

/// The web app's files (this folder: `index.html`, `app.css`, `js/`), carried as the resources of
/// this target so the server can serve them wherever it is installed. Plain ES modules, no build
/// step: what is here is what the browser gets.
public enum WebApp {
    /// The folder holding `index.html`, or nil when the resources are missing.
    public static var root: String? {
        Bundle.module.url(forResource: "index", withExtension: "html")?.deletingLastPathComponent().path
    }
}
