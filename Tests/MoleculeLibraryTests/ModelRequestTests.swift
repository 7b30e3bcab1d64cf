import MoleculeLibrary
import MoleculeMesh
import SceneExport
import Testing

/// The model-options codec: one parser for every caller, one canonical text, one cache key.
@Suite("Model options codec")
struct ModelRequestTests {
    @Test("the same options in any order give the same canonical text and key; any difference gives another")
    func canonicalAndKey() throws {
        let a = try ModelRequest(format: .glb, parameters: ["style": "cartoon", "color": "chain", "hide": "water,ligands"])
        let b = try ModelRequest(format: .glb, parameters: ["hide": "ligands,water", "color": "chain", "style": "cartoon"])
        #expect(a.canonical == b.canonical)
        #expect(a.cacheKey(fileHash: "f") == b.cacheKey(fileHash: "f"))
        #expect(a.cacheKey(fileHash: "f") != a.cacheKey(fileHash: "g"))
        let usdz = try ModelRequest(format: .usdz, parameters: ["style": "cartoon", "color": "chain", "hide": "water,ligands"])
        #expect(usdz.cacheKey(fileHash: "f") != a.cacheKey(fileHash: "f"))
        for (name, value) in [("select", "A"), ("highlight", "A:1-5"), ("assembly", "1"), ("max-triangles", "20000"), ("size", "0.5"), ("true-scale", "1"),
                              ("sticks", "A:5-9"), ("model", "2"), ("model", "all"), ("compare", "4AKE"), ("morph", "4AKE")] {
            var parameters = ["style": "cartoon", "color": "chain", "hide": "water,ligands"]
            parameters[name] = value
            #expect(try ModelRequest(format: .glb, parameters: parameters).cacheKey(fileHash: "f") != a.cacheKey(fileHash: "f"), "\(name)")
        }
    }

    @Test("compare and morph name a library molecule, one at a time, never with site; compare draws first models")
    func partners() throws {
        let compare = try ModelRequest(format: .glb, parameters: ["compare": "4AKE", "style": "cartoon"])
        #expect(compare.options.partner == ScenePartner(.compare, id: "4AKE"))
        let morph = try ModelRequest(format: .glb, parameters: ["morph": "upload-1f", "model": "all"])
        #expect(morph.options.partner == ScenePartner(.morph, id: "upload-1f") && morph.options.allModels)
        #expect(try ModelRequest(format: .glb, parameters: ["morph": "4AKE"]).canonical != compare.canonical)
        func message(_ parameters: [String: String]) -> String? {
            do { _ = try ModelRequest(format: .glb, parameters: parameters); return nil } catch { return error.description }
        }
        #expect(message(["compare": "4AKE", "morph": "4AKE"]) == "compare and morph: one at a time")
        #expect(message(["compare": "4AKE", "site": "AP5"]) == "compare and site: one at a time")
        #expect(message(["compare": "4AKE", "model": "2"]) == "compare shows each molecule's first model; leave out model")
        #expect(message(["morph": "../etc"])?.hasPrefix("morph '../etc': expected a library id") == true)
        #expect(message(["compare": ""])?.hasPrefix("compare '': expected a library id") == true)
        let json = try ModelRequest.comparison(with: "4AKE")
        #expect(json.output == .comparison && json.output.mediaType == "application/json")
        #expect(throws: RequestError.self) { try ModelRequest.comparison(with: "a b") }
    }

    @Test("values reach the scene options")
    func values() throws {
        let r = try ModelRequest(format: .usdz, parameters: ["style": "ball-and-stick", "select": "A", "max-triangles": "5000", "size": "1.5"])
        #expect(r.options.representation == .ballAndStick)
        #expect(r.options.selection == "A")
        #expect(r.options.maxTriangles == 5000)
        #expect(r.options.size == 1.5)
        #expect(r.output.mediaType == ModelFormat.usdz.mediaType)
        #expect(try ModelRequest(format: .glb, parameters: ["true-scale": "yes"]).options.size == nil)
        #expect(try ModelRequest(format: .glb, parameters: ["hide": "none"]).options.hide.isEmpty)
        let frame = try ModelRequest(format: .glb, parameters: ["model": "7", "sticks": "A:88,B:5"])
        #expect(frame.options.model == 7 && frame.options.sticks == "A:88,B:5")
        #expect(try ModelRequest(format: .glb, parameters: [:]).options.model == 1)
        #expect(try ModelRequest(format: .glb, parameters: ["model": "all"]).options.allModels)
    }

    @Test("bad values and unknown names are errors that say what is accepted")
    func errors() {
        func message(_ parameters: [String: String]) -> String? {
            do { _ = try ModelRequest(format: .glb, parameters: parameters); return nil } catch { return error.description }
        }
        #expect(message(["colour": "chain"])?.contains("unknown parameter 'colour'; accepted: style, color") == true)
        #expect(message(["style": "watercolour"]) != nil)
        #expect(message(["select": "A:"]) != nil)
        #expect(message(["assembly": "1/../2"])?.hasPrefix("assembly") == true)
        #expect(message(["max-triangles": "999"]) == "max-triangles '999': expected a whole number from 1000 to 1000000")
        #expect(message(["size": "0"]) == "size '0': expected metres from 0.01 to 100")
        #expect(message(["model": "0"]) == "model '0': expected a model's number from 1 to 10000, or all")
        #expect(message(["model": "two"]) == "model 'two': expected a model's number from 1 to 10000, or all")
        #expect(message(["sticks": "A:"]) != nil)
        do { _ = try ModelRequest(format: .usdz, parameters: ["model": "all"]); Issue.record("model=all made a USDZ") } catch {
            #expect(error.description == "model=all: only a GLB carries the models (as an animation); ask for one model (model=N) in usdz")
        }
    }

    @Test("target: AR models default to 100,000 triangles, screen models to 300,000; USDZ is for AR; max-triangles wins")
    func target() throws {
        func budget(_ format: ModelFormat, _ parameters: [String: String]) throws -> Int {
            try ModelRequest(format: format, parameters: parameters).options.maxTriangles
        }
        #expect(try budget(.usdz, [:]) == 100_000)
        #expect(try budget(.glb, [:]) == 300_000)
        #expect(try budget(.glb, ["target": "ar"]) == 100_000)
        #expect(try budget(.usdz, ["target": "screen"]) == 300_000)
        #expect(try budget(.glb, ["target": "ar", "max-triangles": "20000"]) == 20_000)
        // The target only sets the budget, so the same budget is the same model (one cache entry).
        #expect(try ModelRequest(format: .glb, parameters: ["target": "ar"]).canonical
                == ModelRequest(format: .glb, parameters: ["max-triangles": "100000"]).canonical)
        do {
            _ = try ModelRequest(format: .glb, parameters: ["target": "phone"])
            Issue.record("target=phone was accepted")
        } catch {
            #expect(error.description == "target 'phone': expected ar or screen")
        }
    }

    @Test("the command line's limits are its own user's: any positive budget or size")
    func commandLineLimits() throws {
        let options = try ModelRequest.sceneOptions(["max-triangles": "10", "size": "1000"], limits: .commandLine)
        #expect(options.maxTriangles == 10 && options.size == 1000)
        #expect(throws: RequestError.self) { try ModelRequest.sceneOptions(["max-triangles": "0"], limits: .commandLine) }
    }

    @Test("a thumbnail: pixels and style only, its own key")
    func picture() throws {
        let p = try ModelRequest.picture(["size": "64", "style": "spacefill", "v": "2"])
        #expect(p.output == .picture(pixels: 64))
        #expect(p.output.mediaType == "image/png")
        #expect(p.options.representation == .spacefill)
        #expect(p.options.maxTriangles == ModelRequest.pictureTriangles)
        #expect(try ModelRequest.picture([:]).output == .picture(pixels: 256))
        #expect(throws: RequestError.self) { try ModelRequest.picture(["size": "4096"]) }
        #expect(p.cacheKey(fileHash: "f") != (try ModelRequest.picture(["size": "128", "style": "spacefill"])).cacheKey(fileHash: "f"))
    }
}
