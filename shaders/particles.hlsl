// build: vs_5_0 vs_main particles
// build: gs_5_0 gs_main particles
//
// One step of a particle system, run by a geometry program and kept by stream output
// (examples/frames/particles.toml). Each particle is one point: position and size
// (POSITION.w), velocity and colour, 44 bytes (no scalar element, so no signature
// packing moves a component of one element into another's register). The geometry program moves it by its velocity and gravity over one
// time step (p + v dt + g dt² / 2, v + g dt) and streams it out as one point, unless it
// fell through the floor (y below -1): a dead particle is not written, so the filled
// size counts only the living. The frame's next draw reads the stream-output buffer with
// DrawAuto and expands each point into a camera-facing quad (geometry_sprites.hlsl).
// dt = 0.25 and g = (0, -2, 0), so a step of dyadic values stays exact. The step draw
// rasterizes nothing, so SV_Position is not needed; the geometry program writes it (the
// point seen from geometry_sprites' camera) so that the same step can also be drawn with
// a rasterized stream.

struct Particle
{
    float4 pos : POSITION;
    float3 vel : VELOCITY;
    float4 color : COLOR;
};

struct Stepped
{
    float4 clip : SV_Position;
    float4 pos : POSITION;
    float3 vel : VELOCITY;
    float4 color : COLOR;
};

static const float dt = 0.25;
static const float3 gravity = float3(0, -2, 0);

Particle vs_main(Particle p)
{
    return p;
}

[maxvertexcount(1)]
void gs_main(point Particle p[1], inout PointStream<Stepped> stream)
{
    Stepped o;
    o.color = p[0].color;
    o.pos.xyz = p[0].pos.xyz + p[0].vel * dt + gravity * (0.5 * dt * dt);
    o.pos.w = p[0].pos.w;
    o.vel = p[0].vel + gravity * dt;
    o.clip = float4(o.pos.xy, o.pos.z * 0.5, o.pos.z);
    if (o.pos.y >= -1)
        stream.Append(o);
}
