/*
 * The Embree peer of dxlane's ray tracing tests and benchmark. Built at test time with
 * `cc ... -lembree3` (never part of the library build) by tests/embree_peer/peer.rs.
 *
 *   peer compare SCENE RAYS OUT
 *       Builds SCENE, traces every ray of RAYS with rtcIntersect1 (closest hit) and writes
 *       one record per ray to OUT: f32 t, u32 instance, u32 primitive, f32 u, f32 v
 *       (instance 0xffffffff for a miss).
 *   peer bench SCENE CAMERA THREADS REPS
 *       Builds SCENE on THREADS threads, then traces the primary rays CAMERA describes
 *       on THREADS threads, REPS times; prints `build_s=… build_cpu_s=… trace_s=…
 *       trace_cpu_s=… rays=… hits=…`: wall and process CPU seconds, medians for tracing.
 *
 * SCENE (little-endian): u32 blas count; per structure u32 triangle count and 9 f32 per
 * triangle; u32 instance count; per instance u32 structure index and 12 f32 (3x4 row
 * major, object to world). RAYS: u32 count, then 8 f32 per ray (origin, tmin, direction,
 * tmax). CAMERA: u32 width, u32 height, 12 f32: origin, forward, right, up; the ray of
 * pixel (x, y) has direction forward + sx*right + sy*up with
 * sx = ((x + 0.5) / width) * 2 - 1, sy = 1 - ((y + 0.5) / height) * 2.
 */
#include <embree3/rtcore.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char *what) {
    fprintf(stderr, "embree peer: %s\n", what);
    exit(2);
}

static void *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open input");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) die("cannot read input");
    fclose(f);
    *len = (size_t)n;
    return buf;
}

typedef struct {
    const uint8_t *p, *end;
} Cursor;

static uint32_t u32(Cursor *c) {
    uint32_t v;
    if (c->end - c->p < 4) die("truncated input");
    memcpy(&v, c->p, 4);
    c->p += 4;
    return v;
}

static const float *floats(Cursor *c, size_t n) {
    if ((size_t)(c->end - c->p) < 4 * n) die("truncated input");
    const float *f = (const float *)c->p;
    c->p += 4 * n;
    return f;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_error(void *user, enum RTCError code, const char *str) {
    (void)user;
    fprintf(stderr, "embree peer: embree error %d: %s\n", (int)code, str ? str : "");
    exit(2);
}

static RTCScene build_scene(RTCDevice dev, Cursor *c, int robust) {
    uint32_t nblas = u32(c);
    RTCScene *blas = calloc(nblas ? nblas : 1, sizeof(RTCScene));
    for (uint32_t b = 0; b < nblas; b++) {
        uint32_t ntri = u32(c);
        const float *v = floats(c, (size_t)ntri * 9);
        RTCScene s = rtcNewScene(dev);
        if (robust) rtcSetSceneFlags(s, RTC_SCENE_FLAG_ROBUST);
        RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
        float *vb = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float),
                                            (size_t)ntri * 3);
        unsigned *ib = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned),
                                               ntri);
        memcpy(vb, v, (size_t)ntri * 9 * sizeof(float));
        for (uint32_t i = 0; i < 3 * ntri; i++) ib[i] = i;
        rtcCommitGeometry(g);
        rtcAttachGeometry(s, g);
        rtcReleaseGeometry(g);
        rtcCommitScene(s);
        blas[b] = s;
    }
    uint32_t ninst = u32(c);
    RTCScene top = rtcNewScene(dev);
    if (robust) rtcSetSceneFlags(top, RTC_SCENE_FLAG_ROBUST);
    for (uint32_t i = 0; i < ninst; i++) {
        uint32_t b = u32(c);
        const float *m = floats(c, 12);
        if (b >= nblas) die("instance of a missing structure");
        RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_INSTANCE);
        rtcSetGeometryInstancedScene(g, blas[b]);
        rtcSetGeometryTransform(g, 0, RTC_FORMAT_FLOAT3X4_ROW_MAJOR, m);
        rtcCommitGeometry(g);
        rtcAttachGeometryByID(top, g, i);
        rtcReleaseGeometry(g);
    }
    rtcCommitScene(top);
    free(blas);
    return top;
}

static void trace_one(RTCScene scene, const float *r, float out[5]) {
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    struct RTCRayHit rh;
    memset(&rh, 0, sizeof rh);
    rh.ray.org_x = r[0];
    rh.ray.org_y = r[1];
    rh.ray.org_z = r[2];
    rh.ray.tnear = r[3];
    rh.ray.dir_x = r[4];
    rh.ray.dir_y = r[5];
    rh.ray.dir_z = r[6];
    rh.ray.tfar = r[7];
    rh.ray.mask = 0xffffffffu;
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(scene, &ctx, &rh);
    uint32_t inst = 0xffffffffu, prim = 0;
    float t = 0, u = 0, v = 0;
    if (rh.hit.geomID != RTC_INVALID_GEOMETRY_ID) {
        inst = rh.hit.instID[0];
        prim = rh.hit.primID;
        t = rh.ray.tfar;
        u = rh.hit.u;
        v = rh.hit.v;
    }
    out[0] = t;
    memcpy(&out[1], &inst, 4);
    memcpy(&out[2], &prim, 4);
    out[3] = u;
    out[4] = v;
}

typedef struct {
    RTCScene scene;
    uint32_t w, h, first, step;
    const float *cam;
    uint64_t hits;
} Job;

static void *trace_rows(void *arg) {
    Job *j = arg;
    const float *c = j->cam;
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    uint64_t hits = 0;
    for (uint32_t y = j->first; y < j->h; y += j->step) {
        float sy = 1.0f - ((float)y + 0.5f) / (float)j->h * 2.0f;
        for (uint32_t x = 0; x < j->w; x++) {
            float sx = ((float)x + 0.5f) / (float)j->w * 2.0f - 1.0f;
            struct RTCRayHit rh;
            rh.ray.org_x = c[0];
            rh.ray.org_y = c[1];
            rh.ray.org_z = c[2];
            rh.ray.dir_x = c[3] + sx * c[6] + sy * c[9];
            rh.ray.dir_y = c[4] + sx * c[7] + sy * c[10];
            rh.ray.dir_z = c[5] + sx * c[8] + sy * c[11];
            rh.ray.tnear = 0.0f;
            rh.ray.tfar = 1.0e30f;
            rh.ray.time = 0.0f;
            rh.ray.mask = 0xffffffffu;
            rh.ray.id = 0;
            rh.ray.flags = 0;
            rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
            rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
            rtcIntersect1(j->scene, &ctx, &rh);
            hits += rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
        }
    }
    j->hits = hits;
    return NULL;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "compare") == 0) {
        size_t sl, rl;
        uint8_t *sb = read_all(argv[2], &sl);
        uint8_t *rb = read_all(argv[3], &rl);
        RTCDevice dev = rtcNewDevice("threads=1");
        if (!dev) die("rtcNewDevice failed");
        rtcSetDeviceErrorFunction(dev, on_error, NULL);
        Cursor c = {sb, sb + sl};
        RTCScene scene = build_scene(dev, &c, 1);
        Cursor r = {rb, rb + rl};
        uint32_t n = u32(&r);
        const float *rays = floats(&r, (size_t)n * 8);
        FILE *out = fopen(argv[4], "wb");
        if (!out) die("cannot open output");
        for (uint32_t i = 0; i < n; i++) {
            float rec[5];
            trace_one(scene, rays + 8 * (size_t)i, rec);
            if (fwrite(rec, 4, 5, out) != 5) die("cannot write output");
        }
        fclose(out);
        rtcReleaseScene(scene);
        rtcReleaseDevice(dev);
        return 0;
    }
    if (argc == 6 && strcmp(argv[1], "bench") == 0) {
        int threads = atoi(argv[4]);
        int reps = atoi(argv[5]);
        if (threads < 1 || threads > 64 || reps < 1 || reps > 99) die("bad thread or repetition count");
        size_t sl, cl;
        uint8_t *sb = read_all(argv[2], &sl);
        uint8_t *cb = read_all(argv[3], &cl);
        char cfg[64];
        snprintf(cfg, sizeof cfg, "threads=%d", threads);
        RTCDevice dev = rtcNewDevice(cfg);
        if (!dev) die("rtcNewDevice failed");
        rtcSetDeviceErrorFunction(dev, on_error, NULL);
        Cursor c = {sb, sb + sl};
        double t0 = now(), c0 = cpu();
        RTCScene scene = build_scene(dev, &c, 0);
        double build = now() - t0, build_cpu = cpu() - c0;
        Cursor cc = {cb, cb + cl};
        uint32_t w = u32(&cc), h = u32(&cc);
        const float *cam = floats(&cc, 12);
        double times[99], cpus[99];
        uint64_t hits = 0;
        for (int k = 0; k < reps; k++) {
            pthread_t th[64];
            Job jobs[64];
            double s = now(), sc = cpu();
            for (int i = 0; i < threads; i++) {
                jobs[i] = (Job){scene, w, h, (uint32_t)i, (uint32_t)threads, cam, 0};
                pthread_create(&th[i], NULL, trace_rows, &jobs[i]);
            }
            hits = 0;
            for (int i = 0; i < threads; i++) {
                pthread_join(th[i], NULL);
                hits += jobs[i].hits;
            }
            times[k] = now() - s;
            cpus[k] = cpu() - sc;
        }
        qsort(times, (size_t)reps, sizeof(double), cmp_double);
        qsort(cpus, (size_t)reps, sizeof(double), cmp_double);
        printf("build_s=%.6f build_cpu_s=%.6f trace_s=%.6f trace_cpu_s=%.6f rays=%llu hits=%llu\n", build, build_cpu,
               times[reps / 2], cpus[reps / 2], (unsigned long long)w * h, (unsigned long long)hits);
        rtcReleaseScene(scene);
        rtcReleaseDevice(dev);
        return 0;
    }
    fprintf(stderr, "usage: peer compare SCENE RAYS OUT | peer bench SCENE CAMERA THREADS REPS\n");
    return 2;
}
