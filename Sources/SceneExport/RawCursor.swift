/// Writes little-endian values into preallocated memory (unaligned stores are fine: SE-0349).
struct RawCursor {
    let base: UnsafeMutableRawPointer
    var offset = 0

    @inline(__always) mutating func u8(_ v: UInt8) { base.storeBytes(of: v, toByteOffset: offset, as: UInt8.self); offset += 1 }
    @inline(__always) mutating func u16(_ v: UInt16) {
        base.storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt16.self); offset += 2
    }
    @inline(__always) mutating func u32(_ v: UInt32) {
        base.storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt32.self); offset += 4
    }
    @inline(__always) mutating func f32(_ v: Float) { u32(v.bitPattern) }
    @inline(__always) mutating func vec3(_ v: SIMD3<Float>) { f32(v.x); f32(v.y); f32(v.z) }
    mutating func bytes(_ b: [UInt8]) {
        b.withUnsafeBytes { src in
            if let s = src.baseAddress { (base + offset).copyMemory(from: s, byteCount: src.count) }
        }
        offset += b.count
    }
    mutating func fill(_ v: UInt8, count: Int) {
        if count > 0 { (base + offset).initializeMemory(as: UInt8.self, repeating: v, count: count) }
        offset += count
    }
}

/// Exactly `count` bytes written by `body`, which must write all of them.
func makeBytes(count: Int, _ body: (inout RawCursor) -> Void) -> [UInt8] {
    if count == 0 { return [] }
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        var cursor = RawCursor(base: UnsafeMutableRawPointer(buffer.baseAddress!))
        body(&cursor)
        precondition(cursor.offset == count, "scene writer wrote \(cursor.offset) bytes of \(count)")
        initialized = count
    }
}
