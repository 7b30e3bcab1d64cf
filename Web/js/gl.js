// WebGL2 for the 3D viewer (viewer.js): its shaders, linking them into programs, uploading parsed
// models (glb.js's shape) as instanced vertex arrays and drawing them, and the offscreen frame a
// slow device draws into while the view moves. Shading imitates Mol*'s defaults (headlight-style
// key light, soft fill, faint highlights, depth fog) so the preview looks familiar to structural
// biologists.

import { mat4 } from './math.js';

// Per-instance attributes: a mat4 model matrix then a mat3 normal matrix.
const INSTANCE_FLOATS = 16 + 9;
const INSTANCE_STRIDE = INSTANCE_FLOATS * 4;

const VERTEX_SHADER = `#version 300 es
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec4 aColor;
layout(location = 3) in mat4 aModel;        // locations 3-6, one per instance
layout(location = 7) in mat3 aNormalMatrix; // locations 7-9, one per instance

uniform mat4 uView;
uniform mat4 uProjection;

out vec3 vViewPosition;
out vec3 vNormal;
out vec4 vColor;

void main() {
  vec4 viewPosition = uView * (aModel * vec4(aPosition, 1.0));
  vViewPosition = viewPosition.xyz;
  // The view matrix is a rigid motion, so its 3x3 part transforms normals.
  vNormal = mat3(uView) * (aNormalMatrix * aNormal);
  vColor = aColor;
  gl_Position = uProjection * viewPosition;
}
`;

const FRAGMENT_SHADER = `#version 300 es
precision highp float;

in vec3 vViewPosition;
in vec3 vNormal;
in vec4 vColor;

uniform vec3 uBackground; // display (sRGB) colour, so fog meets the clear colour exactly
uniform vec3 uFog;        // start depth, end depth, strength (0 turns fog off)

out vec4 outColor;

void main() {
  vec3 n = normalize(vNormal);
  vec3 v = normalize(-vViewPosition);
  // Light both faces: exported surfaces are not always closed or consistently wound.
  if (dot(n, v) < 0.0) n = -n;

  // Key light just above-left of the camera, weaker fill from lower right.
  vec3 key = normalize(vec3(-0.3, 0.4, 1.0));
  vec3 fill = normalize(vec3(0.6, -0.35, 0.5));
  float diffuse = 0.6 * max(dot(n, key), 0.0) + 0.15 * max(dot(n, fill), 0.0);
  vec3 h = normalize(key + v);
  float specular = 0.12 * pow(max(dot(n, h), 0.0), 40.0);

  // Vertex colours are linear; light in linear space, then encode for display.
  vec3 linearColor = vColor.rgb * (0.35 + diffuse) + vec3(specular);
  vec3 color = pow(clamp(linearColor, 0.0, 1.0), vec3(1.0 / 2.2));

  float fog = uFog.z * smoothstep(uFog.x, uFog.y, -vViewPosition.z);
  outColor = vec4(mix(color, uBackground, fog), 1.0);
}
`;

// Draws a texture over the whole viewport from one oversized triangle, with no vertex buffer.
const PRESENT_VERTEX_SHADER = `#version 300 es
out vec2 vUV;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  vUV = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
`;

const PRESENT_FRAGMENT_SHADER = `#version 300 es
precision mediump float;
uniform sampler2D uFrame;
in vec2 vUV;
out vec4 outColor;
void main() { outColor = texture(uFrame, vUV); }
`;

/** Links the shaders that draw models: the program and its uniforms' locations. */
export function createSceneProgram(gl) {
  const program = linkProgram(gl, VERTEX_SHADER, FRAGMENT_SHADER);
  const uniforms = {
    view: gl.getUniformLocation(program, 'uView'),
    projection: gl.getUniformLocation(program, 'uProjection'),
    background: gl.getUniformLocation(program, 'uBackground'),
    fog: gl.getUniformLocation(program, 'uFog')
  };
  return { program, uniforms };
}

/** Links the program that stretches an offscreen frame over the canvas (presentFrame). */
export function createPresentProgram(gl) {
  return linkProgram(gl, PRESENT_VERTEX_SHADER, PRESENT_FRAGMENT_SHADER);
}

function linkProgram(gl, vertexSource, fragmentSource) {
  const program = gl.createProgram();
  const vertex = compileShader(gl, gl.VERTEX_SHADER, vertexSource);
  const fragment = compileShader(gl, gl.FRAGMENT_SHADER, fragmentSource);
  gl.attachShader(program, vertex);
  gl.attachShader(program, fragment);
  gl.linkProgram(program);
  gl.deleteShader(vertex);
  gl.deleteShader(fragment);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS) && !gl.isContextLost()) {
    const log = gl.getProgramInfoLog(program);
    gl.deleteProgram(program);
    throw new Error(`The 3D viewer's shaders failed to link: ${log}`);
  }
  return program;
}

function compileShader(gl, type, source) {
  const shader = gl.createShader(type);
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS) && !gl.isContextLost()) {
    const log = gl.getShaderInfoLog(shader);
    gl.deleteShader(shader);
    throw new Error(`The 3D viewer's shader failed to compile: ${log}`);
  }
  return shader;
}

function vertexBuffer(gl, location, data, size) {
  const buffer = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
  gl.enableVertexAttribArray(location);
  gl.vertexAttribPointer(location, size, gl.FLOAT, false, 0, 0);
  return buffer;
}

// One column of a per-instance matrix, read from the bound instance buffer.
function instanceAttribute(gl, location, size, offset) {
  gl.enableVertexAttribArray(location);
  gl.vertexAttribPointer(location, size, gl.FLOAT, false, INSTANCE_STRIDE, offset);
  gl.vertexAttribDivisor(location, 1);
}

// --- Models ------------------------------------------------------------------

/**
 * Uploads a parsed model's meshes, one instance per node; returns what releaseMeshes frees and
 * drawMeshes draws.
 */
export function uploadMeshes(gl, parsed) {
  const uploaded = [];
  const matricesByMesh = new Map();
  for (const node of parsed.nodes) {
    if (!matricesByMesh.has(node.mesh)) matricesByMesh.set(node.mesh, []);
    matricesByMesh.get(node.mesh).push(node.matrix);
  }
  const normalMatrix = new Float32Array(9);
  for (const [meshIndex, matrices] of matricesByMesh) {
    const mesh = parsed.meshes[meshIndex];
    if (!mesh || mesh.primitives.length === 0) continue;

    const instances = new Float32Array(matrices.length * INSTANCE_FLOATS);
    matrices.forEach((matrix, i) => {
      instances.set(matrix, i * INSTANCE_FLOATS);
      instances.set(mat4.normalMatrix(normalMatrix, matrix), i * INSTANCE_FLOATS + 16);
    });
    const instanceBuffer = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, instanceBuffer);
    gl.bufferData(gl.ARRAY_BUFFER, instances, gl.STATIC_DRAW);
    // `mesh`: which of the model's meshes this is, so its colours can be rewritten (tint.js).
    const entry = { mesh: meshIndex, instanceBuffer, instanceCount: matrices.length, primitives: [] };
    uploaded.push(entry);

    for (const primitive of mesh.primitives) {
      const vao = gl.createVertexArray();
      gl.bindVertexArray(vao);
      const buffers = [
        vertexBuffer(gl, 0, primitive.positions, 3),
        vertexBuffer(gl, 1, primitive.normals, 3),
        vertexBuffer(gl, 2, primitive.colors, 4)
      ];
      gl.bindBuffer(gl.ARRAY_BUFFER, instanceBuffer);
      for (let column = 0; column < 4; column++) {
        instanceAttribute(gl, 3 + column, 4, column * 16);
      }
      for (let column = 0; column < 3; column++) {
        instanceAttribute(gl, 7 + column, 3, 64 + column * 12);
      }
      let indexType = 0;
      let count = primitive.vertexCount - (primitive.vertexCount % 3);
      if (primitive.indices) {
        const indexBuffer = gl.createBuffer();
        gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, indexBuffer);
        gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, primitive.indices, gl.STATIC_DRAW);
        buffers.push(indexBuffer);
        indexType = primitive.indices instanceof Uint32Array ? gl.UNSIGNED_INT
          : primitive.indices instanceof Uint16Array ? gl.UNSIGNED_SHORT : gl.UNSIGNED_BYTE;
        count = primitive.indices.length - (primitive.indices.length % 3);
      }
      gl.bindVertexArray(null);
      entry.primitives.push({ vao, buffers, indexType, count });
    }
  }
  gl.bindBuffer(gl.ARRAY_BUFFER, null);
  if (gl.getError() === gl.OUT_OF_MEMORY) {
    releaseMeshes(gl, uploaded);
    throw new Error('This model is too large for the graphics memory of this device.');
  }
  return uploaded;
}

export function releaseMeshes(gl, uploaded) {
  for (const mesh of uploaded) {
    for (const primitive of mesh.primitives) {
      gl.deleteVertexArray(primitive.vao);
      for (const buffer of primitive.buffers) gl.deleteBuffer(buffer);
    }
    gl.deleteBuffer(mesh.instanceBuffer);
  }
}

export function drawMeshes(gl, uploaded) {
  for (const mesh of uploaded) {
    for (const primitive of mesh.primitives) {
      gl.bindVertexArray(primitive.vao);
      if (primitive.indexType) {
        gl.drawElementsInstanced(gl.TRIANGLES, primitive.count, primitive.indexType, 0, mesh.instanceCount);
      } else {
        gl.drawArraysInstanced(gl.TRIANGLES, 0, primitive.count, mesh.instanceCount);
      }
    }
  }
  gl.bindVertexArray(null);
}

// --- Offscreen frame -----------------------------------------------------------

/** An offscreen colour texture and depth buffer of w × h pixels, bound for drawing. */
export function createFrameTarget(gl, w, h) {
  const texture = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, texture);
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA8, w, h);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  const depth = gl.createRenderbuffer();
  gl.bindRenderbuffer(gl.RENDERBUFFER, depth);
  gl.renderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT24, w, h);
  const framebuffer = gl.createFramebuffer();
  gl.bindFramebuffer(gl.FRAMEBUFFER, framebuffer);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, texture, 0);
  gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, depth);
  return { framebuffer, texture, depth, width: w, height: h };
}

export function deleteFrameTarget(gl, target) {
  gl.deleteFramebuffer(target.framebuffer);
  gl.deleteTexture(target.texture);
  gl.deleteRenderbuffer(target.depth);
}

/** Stretches an offscreen frame over the canvas (one triangle that covers it), with createPresentProgram's program. */
export function presentFrame(gl, program, target, width, height) {
  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  gl.viewport(0, 0, width, height);
  gl.disable(gl.DEPTH_TEST);
  gl.useProgram(program);
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, target.texture);
  gl.bindVertexArray(null);
  gl.drawArrays(gl.TRIANGLES, 0, 3);
  gl.enable(gl.DEPTH_TEST);
}
