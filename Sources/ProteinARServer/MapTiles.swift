import AsyncHTTPClient
import Foundation
import Hummingbird
import MoleculeLibrary
import NIOCore

/// The map of rooms' tiles, from this server's own origin: the page's Content-Security-Policy keeps
/// pictures to the server, so `GET /tiles/{z}/{x}/{y}.png` fetches each tile once from the tile
/// server named by `--tile-server` (a template such as `https://tile.openstreetmap.org/{z}/{x}/{y}.png`),
/// keeps it in memory and sends it with a day's caching. `GET /api/map` tells the page whether there
/// are tiles and whose they are, or why not. An address may ask for 600 tiles a minute (a map panned
/// about freely), at most 1 MB each; tiles asked for at once are fetched once.
struct MapTiles: Sendable {
    /// The tile server's URL template; nil: no tiles (the page lists the rooms by distance).
    let template: String?
    let attribution: String
    private let cache = HotModelCache(limitBytes: 64 << 20)
    private let fetching = SharedWork<ByteBuffer>()
    private let perClient = RateLimiter(burst: 600, per: 60)
    static let deepestZoom = 19
    static let largestTile = 1 << 20

    init(template: String?, attribution: String) {
        self.template = template; self.attribution = attribution
    }

    func register(on router: Router<ServerContext>) {
        router.get("api/map") { _, _ in try Responses.encoded(Description(tiles: template == nil ? nil : "/tiles/{z}/{x}/{y}.png",
            attribution: template == nil ? nil : attribution,
            why: template == nil ? "This server has no map tile server set (proteinar serve --tile-server), so the rooms are listed by distance." : nil)) }
        router.get("tiles/:z/:x/:y") { request, context in try await tile(request, context) }
    }

    struct Description: Encodable { var tiles: String?; var attribution: String?; var why: String? }

    private func tile(_ request: Request, _ context: ServerContext) async throws -> Response {
        guard let template else { throw APIError(.notFound, "no map tile server: start the server with --tile-server URL") }
        let (z, x, y) = try Self.coordinates(context)
        let key = "\(z)/\(x)/\(y)"
        let png: ByteBuffer
        if let kept = cache.get(key) {
            png = kept.buffer
        } else {
            try call { try perClient.take(context.clientAddress, what: "map tiles (a minute's worth)", from: "your address") }
            let url = template.replacingOccurrences(of: "{z}", with: String(z)).replacingOccurrences(of: "{x}", with: String(x))
                .replacingOccurrences(of: "{y}", with: String(y))
            png = try await fetching.run(key) { try await Self.fetch(url) }
            cache.put(key: key, buffer: png, mediaType: "image/png")
        }
        var response = Responses.bytes(png, type: "image/png", etag: "tile-" + key.replacingOccurrences(of: "/", with: "-"), request: request,
                                       head: false, disposition: nil)
        response.headers[.cacheControl] = "public, max-age=86400"
        return response
    }

    /// z from 0 to 19; x and y from 0 to 2^z − 1.
    static func coordinates(_ context: ServerContext) throws -> (Int, Int, Int) {
        let yText = (context.parameters.get("y") ?? "").replacingOccurrences(of: ".png", with: "")
        guard let z = Int(context.parameters.get("z") ?? ""), (0...deepestZoom).contains(z),
              let x = Int(context.parameters.get("x") ?? ""), let y = Int(yText), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y) else {
            throw APIError(.badRequest, "a tile is /tiles/{z}/{x}/{y}.png with z from 0 to \(deepestZoom) and x, y from 0 to 2^z − 1")
        }
        return (z, x, y)
    }

    /// One tile from the tile server: 200 with at most `largestTile` bytes, within 10 s.
    static func fetch(_ url: String) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "ProteinAR/1.0 (map of drawing rooms; tiles cached a day)")
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            guard response.status == .ok else {
                throw APIError(.badGateway, "the map tile server answered \(response.status.code) for this tile")
            }
            return try await response.body.collect(upTo: largestTile)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(.badGateway, "the map tile server could not be reached: \(error)")
        }
    }
}
