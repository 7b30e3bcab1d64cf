import Foundation
import Hummingbird
import Logging
import Testing
import TestArchive
import TestSupport

/// The map's tiles through the server (`MapTiles`), against a stand-in tile server on loopback.
@Suite("Map tiles")
struct MapTilesTests {
    actor Asked { var paths: [String] = []; func add(_ p: String) { paths.append(p) } }
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 200)

    @Test("tiles come from the server's origin: fetched once and kept; coordinates checked; without a tile server 404 and /api/map says why")
    func tiles() async throws {
        let asked = Asked()
        let (port, stand) = try await LoopbackServer.start("the tile stand-in") { running in
            let router = Router()
            router.get("t/:z/:x/:y") { request, _ -> Response in
                await asked.add(request.uri.path)
                if request.uri.path.contains("/9/") { return Response(status: .notFound) }
                return Response(status: .ok, headers: [.contentType: "image/png"], body: .init(byteBuffer: ByteBuffer(bytes: Self.png)))
            }
            var logger = Logger(label: "tiles"); logger.logLevel = .error
            return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                               onServerRunning: { channel in running(channel.localAddress?.port ?? 0) }, logger: logger)
        }
        defer { stand.cancel() }
        let server = try await TestServer.start(.sqlite) {
            $0.installStarterLibrary = false
            $0.tileServer = "http://127.0.0.1:\(port)/t/{z}/{x}/{y}.png"
        }
        defer { Task { await server.stop() } }

        let map = try await server.get("/api/map")
        #expect(map.json["tiles"] as? String == "/tiles/{z}/{x}/{y}.png" && (map.json["attribution"] as? String)?.contains("OpenStreetMap") == true)
        let first = try await server.get("/tiles/3/4/5.png")
        #expect(first.status == 200 && first.body == Self.png && first.headers["content-type"] == "image/png")
        #expect(first.headers["cache-control"]?.contains("max-age=86400") == true)
        let again = try await server.get("/tiles/3/4/5.png")
        #expect(again.status == 200 && again.body == Self.png)
        #expect(await asked.paths == ["/t/3/4/5.png"], "fetched once, then kept")
        for bad in ["/tiles/20/0/0.png", "/tiles/3/8/0.png", "/tiles/3/0/-1.png", "/tiles/x/0/0.png"] {
            let refused = try await server.get(bad)
            #expect(refused.status == 400 && (refused.json["error"] as? String)?.contains("z from 0 to 19") == true, "\(bad): \(refused.status)")
        }
        #expect(try await server.get("/tiles/9/0/0.png").status == 502, "the tile server's 404 is a bad gateway, said")

        let plain = try await TestServer.start(.sqlite) { $0.installStarterLibrary = false }
        defer { Task { await plain.stop() } }
        let none = try await plain.get("/api/map")
        #expect(none.json["tiles"] == nil || none.json["tiles"] is NSNull)
        #expect((none.json["why"] as? String)?.contains("--tile-server") == true)
        #expect(try await plain.get("/tiles/1/0/0.png").status == 404)
    }
}
