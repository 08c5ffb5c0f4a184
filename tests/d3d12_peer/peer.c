/*
 * The D3D12 peer: runs a plan (README.md in this folder describes the format) through
 * vkd3d's D3D12 and writes the bytes of the resources the plan reads back.
 *
 *     peer PLAN
 *
 * Paths in the plan are relative to the plan's folder. Exit status: 0 when every
 * read-back file was written; 1 on an error, after one line on stderr naming the plan
 * line ("plan.txt:12: ..."); 77 when no D3D12 device can be made (no Vulkan driver).
 *
 * The program records each command of the plan into one command list as it reads it,
 * inserting the resource barriers D3D12 needs from the order of the commands (each
 * resource is in one state at a time, the one its last use needed), then executes the
 * list once and copies what the `readback` lines name into readback buffers. With a
 * `repeat N` line it then executes the same list N more times, printing each execution's
 * wall time: the list ends by moving every resource back to the state it started in, so
 * each execution finds what the first did.
 */

/* clock_gettime under -std=c99. */
#define _POSIX_C_SOURCE 200809L

#define COBJMACROS
#define INITGUID
#define WIDL_C_INLINE_WRAPPERS
/* vkd3d.h names a few Vulkan handle types in interop functions this program never
 * calls; declaring them here spares a dependency on the Vulkan headers. */
#define VKD3D_NO_VULKAN_H
#include <stdint.h>
typedef struct VkInstance_T *VkInstance;
typedef struct VkPhysicalDevice_T *VkPhysicalDevice;
typedef struct VkDevice_T *VkDevice;
typedef struct VkQueue_T *VkQueue;
typedef uint64_t VkImage;
typedef int VkFormat;
typedef void (*PFN_vkVoidFunction)(void);
typedef PFN_vkVoidFunction (*PFN_vkGetInstanceProcAddr)(VkInstance, const char *);
#include <vkd3d_utils.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PLAN_VERSION 1
#define MAX_TOKENS 96
#define MAX_NAME 64
#define MAX_OBJECTS 512
#define MAX_BINDINGS 64
#define MAX_TABLES 8
#define MAX_INPUTS 32
#define MAX_SO_ENTRIES 64
#define MAX_READBACKS 1024
#define MAX_UPLOADS 1024
#define MAX_SUBRESOURCES 4096
#define SHADER_HEAP_SIZE 65536
#define SAMPLER_HEAP_SIZE 2048
#define VIEW_HEAP_SIZE 1024

/* ---------------------------------------------------------------- errors */

static const char *plan_path = "plan";
static int cur_line;

static void fail(const char *fmt, ...)
{
    va_list ap;
    if (cur_line > 0)
        fprintf(stderr, "%s:%d: ", plan_path, cur_line);
    else
        fprintf(stderr, "%s: ", plan_path);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void check_hr(HRESULT hr, const char *what)
{
    if (FAILED(hr))
        fail("%s failed (HRESULT %#x)", what, (unsigned int)hr);
}

/* ---------------------------------------------------------------- names */

struct named_value
{
    const char *name;
    unsigned int value;
};

#define F(x) {#x, DXGI_FORMAT_##x},
static const struct named_value formats[] = {
    F(UNKNOWN) F(R32G32B32A32_TYPELESS) F(R32G32B32A32_FLOAT) F(R32G32B32A32_UINT) F(R32G32B32A32_SINT)
    F(R32G32B32_TYPELESS) F(R32G32B32_FLOAT) F(R32G32B32_UINT) F(R32G32B32_SINT) F(R16G16B16A16_TYPELESS)
    F(R16G16B16A16_FLOAT) F(R16G16B16A16_UNORM) F(R16G16B16A16_UINT) F(R16G16B16A16_SNORM) F(R16G16B16A16_SINT)
    F(R32G32_TYPELESS) F(R32G32_FLOAT) F(R32G32_UINT) F(R32G32_SINT) F(R32G8X24_TYPELESS) F(D32_FLOAT_S8X24_UINT)
    F(R32_FLOAT_X8X24_TYPELESS) F(X32_TYPELESS_G8X24_UINT) F(R10G10B10A2_TYPELESS) F(R10G10B10A2_UNORM)
    F(R10G10B10A2_UINT) F(R11G11B10_FLOAT) F(R8G8B8A8_TYPELESS) F(R8G8B8A8_UNORM) F(R8G8B8A8_UNORM_SRGB)
    F(R8G8B8A8_UINT) F(R8G8B8A8_SNORM) F(R8G8B8A8_SINT) F(R16G16_TYPELESS) F(R16G16_FLOAT) F(R16G16_UNORM)
    F(R16G16_UINT) F(R16G16_SNORM) F(R16G16_SINT) F(R32_TYPELESS) F(D32_FLOAT) F(R32_FLOAT) F(R32_UINT)
    F(R32_SINT) F(R24G8_TYPELESS) F(D24_UNORM_S8_UINT) F(R24_UNORM_X8_TYPELESS) F(X24_TYPELESS_G8_UINT)
    F(R8G8_TYPELESS) F(R8G8_UNORM) F(R8G8_UINT) F(R8G8_SNORM) F(R8G8_SINT) F(R16_TYPELESS) F(R16_FLOAT)
    F(D16_UNORM) F(R16_UNORM) F(R16_UINT) F(R16_SNORM) F(R16_SINT) F(R8_TYPELESS) F(R8_UNORM) F(R8_UINT)
    F(R8_SNORM) F(R8_SINT) F(A8_UNORM) F(R1_UNORM) F(R9G9B9E5_SHAREDEXP) F(R8G8_B8G8_UNORM) F(G8R8_G8B8_UNORM)
    F(BC1_TYPELESS) F(BC1_UNORM) F(BC1_UNORM_SRGB) F(BC2_TYPELESS) F(BC2_UNORM) F(BC2_UNORM_SRGB) F(BC3_TYPELESS)
    F(BC3_UNORM) F(BC3_UNORM_SRGB) F(BC4_TYPELESS) F(BC4_UNORM) F(BC4_SNORM) F(BC5_TYPELESS) F(BC5_UNORM)
    F(BC5_SNORM) F(B5G6R5_UNORM) F(B5G5R5A1_UNORM) F(B8G8R8A8_UNORM) F(B8G8R8X8_UNORM)
    F(R10G10B10_XR_BIAS_A2_UNORM) F(B8G8R8A8_TYPELESS) F(B8G8R8A8_UNORM_SRGB) F(B8G8R8X8_TYPELESS)
    F(B8G8R8X8_UNORM_SRGB) F(BC6H_TYPELESS) F(BC6H_UF16) F(BC6H_SF16) F(BC7_TYPELESS) F(BC7_UNORM)
    F(BC7_UNORM_SRGB) F(B4G4R4A4_UNORM)
    {NULL, 0}
};
#undef F

#define N(prefix, x) {#x, prefix##x},
static const struct named_value blends[] = {
    N(D3D12_BLEND_, ZERO) N(D3D12_BLEND_, ONE) N(D3D12_BLEND_, SRC_COLOR) N(D3D12_BLEND_, INV_SRC_COLOR)
    N(D3D12_BLEND_, SRC_ALPHA) N(D3D12_BLEND_, INV_SRC_ALPHA) N(D3D12_BLEND_, DEST_ALPHA)
    N(D3D12_BLEND_, INV_DEST_ALPHA) N(D3D12_BLEND_, DEST_COLOR) N(D3D12_BLEND_, INV_DEST_COLOR)
    N(D3D12_BLEND_, SRC_ALPHA_SAT) N(D3D12_BLEND_, BLEND_FACTOR) N(D3D12_BLEND_, INV_BLEND_FACTOR)
    N(D3D12_BLEND_, SRC1_COLOR) N(D3D12_BLEND_, INV_SRC1_COLOR) N(D3D12_BLEND_, SRC1_ALPHA)
    N(D3D12_BLEND_, INV_SRC1_ALPHA)
    {NULL, 0}
};

static const struct named_value blend_ops[] = {
    N(D3D12_BLEND_OP_, ADD) N(D3D12_BLEND_OP_, SUBTRACT) N(D3D12_BLEND_OP_, REV_SUBTRACT)
    N(D3D12_BLEND_OP_, MIN) N(D3D12_BLEND_OP_, MAX)
    {NULL, 0}
};

/* vkd3d 1.2's header names only the first five logic ops (and its device ignores
 * LogicOpEnable); the values are D3D12_LOGIC_OP's. */
static const struct named_value logic_ops[] = {
    {"CLEAR", 0}, {"SET", 1}, {"COPY", 2}, {"COPY_INVERTED", 3}, {"NOOP", 4}, {"INVERT", 5}, {"AND", 6},
    {"NAND", 7}, {"OR", 8}, {"NOR", 9}, {"XOR", 10}, {"EQUIV", 11}, {"AND_REVERSE", 12},
    {"AND_INVERTED", 13}, {"OR_REVERSE", 14}, {"OR_INVERTED", 15},
    {NULL, 0}
};

static const struct named_value comparisons[] = {
    N(D3D12_COMPARISON_FUNC_, NEVER) N(D3D12_COMPARISON_FUNC_, LESS) N(D3D12_COMPARISON_FUNC_, EQUAL)
    N(D3D12_COMPARISON_FUNC_, LESS_EQUAL) N(D3D12_COMPARISON_FUNC_, GREATER)
    N(D3D12_COMPARISON_FUNC_, NOT_EQUAL) N(D3D12_COMPARISON_FUNC_, GREATER_EQUAL)
    N(D3D12_COMPARISON_FUNC_, ALWAYS)
    {NULL, 0}
};

static const struct named_value stencil_ops[] = {
    N(D3D12_STENCIL_OP_, KEEP) N(D3D12_STENCIL_OP_, ZERO) N(D3D12_STENCIL_OP_, REPLACE)
    N(D3D12_STENCIL_OP_, INCR_SAT) N(D3D12_STENCIL_OP_, DECR_SAT) N(D3D12_STENCIL_OP_, INVERT)
    N(D3D12_STENCIL_OP_, INCR) N(D3D12_STENCIL_OP_, DECR)
    {NULL, 0}
};

static const struct named_value filters[] = {
    N(D3D12_FILTER_, MIN_MAG_MIP_POINT) N(D3D12_FILTER_, MIN_MAG_POINT_MIP_LINEAR)
    N(D3D12_FILTER_, MIN_POINT_MAG_LINEAR_MIP_POINT) N(D3D12_FILTER_, MIN_POINT_MAG_MIP_LINEAR)
    N(D3D12_FILTER_, MIN_LINEAR_MAG_MIP_POINT) N(D3D12_FILTER_, MIN_LINEAR_MAG_POINT_MIP_LINEAR)
    N(D3D12_FILTER_, MIN_MAG_LINEAR_MIP_POINT) N(D3D12_FILTER_, MIN_MAG_MIP_LINEAR)
    N(D3D12_FILTER_, ANISOTROPIC)
    N(D3D12_FILTER_, COMPARISON_MIN_MAG_MIP_POINT) N(D3D12_FILTER_, COMPARISON_MIN_MAG_POINT_MIP_LINEAR)
    N(D3D12_FILTER_, COMPARISON_MIN_POINT_MAG_LINEAR_MIP_POINT) N(D3D12_FILTER_, COMPARISON_MIN_POINT_MAG_MIP_LINEAR)
    N(D3D12_FILTER_, COMPARISON_MIN_LINEAR_MAG_MIP_POINT) N(D3D12_FILTER_, COMPARISON_MIN_LINEAR_MAG_POINT_MIP_LINEAR)
    N(D3D12_FILTER_, COMPARISON_MIN_MAG_LINEAR_MIP_POINT) N(D3D12_FILTER_, COMPARISON_MIN_MAG_MIP_LINEAR)
    N(D3D12_FILTER_, COMPARISON_ANISOTROPIC)
    N(D3D12_FILTER_, MINIMUM_MIN_MAG_MIP_POINT) N(D3D12_FILTER_, MINIMUM_MIN_MAG_MIP_LINEAR)
    N(D3D12_FILTER_, MAXIMUM_MIN_MAG_MIP_POINT) N(D3D12_FILTER_, MAXIMUM_MIN_MAG_MIP_LINEAR)
    {NULL, 0}
};

static const struct named_value address_modes[] = {
    N(D3D12_TEXTURE_ADDRESS_MODE_, WRAP) N(D3D12_TEXTURE_ADDRESS_MODE_, MIRROR)
    N(D3D12_TEXTURE_ADDRESS_MODE_, CLAMP) N(D3D12_TEXTURE_ADDRESS_MODE_, BORDER)
    N(D3D12_TEXTURE_ADDRESS_MODE_, MIRROR_ONCE)
    {NULL, 0}
};

static const struct named_value topologies[] = {
    {"point_list", D3D_PRIMITIVE_TOPOLOGY_POINTLIST},
    {"line_list", D3D_PRIMITIVE_TOPOLOGY_LINELIST},
    {"line_strip", D3D_PRIMITIVE_TOPOLOGY_LINESTRIP},
    {"triangle_list", D3D_PRIMITIVE_TOPOLOGY_TRIANGLELIST},
    {"triangle_strip", D3D_PRIMITIVE_TOPOLOGY_TRIANGLESTRIP},
    {"line_list_adj", D3D_PRIMITIVE_TOPOLOGY_LINELIST_ADJ},
    {"line_strip_adj", D3D_PRIMITIVE_TOPOLOGY_LINESTRIP_ADJ},
    {"triangle_list_adj", D3D_PRIMITIVE_TOPOLOGY_TRIANGLELIST_ADJ},
    {"triangle_strip_adj", D3D_PRIMITIVE_TOPOLOGY_TRIANGLESTRIP_ADJ},
    {NULL, 0}
};

static const struct named_value topology_types[] = {
    {"point", D3D12_PRIMITIVE_TOPOLOGY_TYPE_POINT},
    {"line", D3D12_PRIMITIVE_TOPOLOGY_TYPE_LINE},
    {"triangle", D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE},
    {"patch", D3D12_PRIMITIVE_TOPOLOGY_TYPE_PATCH},
    {NULL, 0}
};

static const struct named_value visibilities[] = {
    {"all", D3D12_SHADER_VISIBILITY_ALL},
    {"vertex", D3D12_SHADER_VISIBILITY_VERTEX},
    {"hull", D3D12_SHADER_VISIBILITY_HULL},
    {"domain", D3D12_SHADER_VISIBILITY_DOMAIN},
    {"geometry", D3D12_SHADER_VISIBILITY_GEOMETRY},
    {"pixel", D3D12_SHADER_VISIBILITY_PIXEL},
    {NULL, 0}
};

static const struct named_value srv_dims[] = {
    {"buffer", D3D12_SRV_DIMENSION_BUFFER},
    {"texture1d", D3D12_SRV_DIMENSION_TEXTURE1D},
    {"texture1darray", D3D12_SRV_DIMENSION_TEXTURE1DARRAY},
    {"texture2d", D3D12_SRV_DIMENSION_TEXTURE2D},
    {"texture2darray", D3D12_SRV_DIMENSION_TEXTURE2DARRAY},
    {"texture2dms", D3D12_SRV_DIMENSION_TEXTURE2DMS},
    {"texture2dmsarray", D3D12_SRV_DIMENSION_TEXTURE2DMSARRAY},
    {"texture3d", D3D12_SRV_DIMENSION_TEXTURE3D},
    {"texturecube", D3D12_SRV_DIMENSION_TEXTURECUBE},
    {"texturecubearray", D3D12_SRV_DIMENSION_TEXTURECUBEARRAY},
    {NULL, 0}
};

static const struct named_value uav_dims[] = {
    {"buffer", D3D12_UAV_DIMENSION_BUFFER},
    {"texture1d", D3D12_UAV_DIMENSION_TEXTURE1D},
    {"texture1darray", D3D12_UAV_DIMENSION_TEXTURE1DARRAY},
    {"texture2d", D3D12_UAV_DIMENSION_TEXTURE2D},
    {"texture2darray", D3D12_UAV_DIMENSION_TEXTURE2DARRAY},
    {"texture3d", D3D12_UAV_DIMENSION_TEXTURE3D},
    {NULL, 0}
};
#undef N

static unsigned int parse_u32(const char *s, const char *what);

static unsigned int lookup(const struct named_value *t, const char *name, const char *what)
{
    const struct named_value *e;
    for (e = t; e->name; ++e)
        if (!strcmp(e->name, name))
            return e->value;
    /* A number is taken as the enumeration's value, for values this table lacks. */
    if (name[0] >= '0' && name[0] <= '9')
        return parse_u32(name, what);
    fail("unknown %s `%s`", what, name);
    return 0;
}

/* ---------------------------------------------------------------- tokens */

struct line
{
    int argc;
    char *argv[MAX_TOKENS]; /* positional tokens */
    int optc;
    char *key[MAX_TOKENS];
    char *val[MAX_TOKENS];
    int used[MAX_TOKENS];
};

/* Splits `text` (modified) at blanks into positional tokens and `key=value` options; a
 * token starting with `#` ends the line. */
static void split(char *text, struct line *l)
{
    char *p = text, *tok, *eq;
    memset(l, 0, sizeof(*l));
    for (;;)
    {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            ++p;
        if (!*p || *p == '#')
            break;
        tok = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            ++p;
        if (*p)
            *p++ = 0;
        if (l->argc + l->optc >= MAX_TOKENS)
            fail("more than %d tokens", MAX_TOKENS);
        if ((eq = strchr(tok, '=')) && eq != tok)
        {
            *eq = 0;
            l->key[l->optc] = tok;
            l->val[l->optc++] = eq + 1;
        }
        else
        {
            l->argv[l->argc++] = tok;
        }
    }
}

static const char *opt(struct line *l, const char *key)
{
    int i;
    for (i = 0; i < l->optc; ++i)
        if (!strcmp(l->key[i], key))
        {
            l->used[i] = 1;
            return l->val[i];
        }
    return NULL;
}

/* Every option must have been read: a misspelt key is an error, not a silent default. */
static void done(struct line *l)
{
    int i;
    for (i = 0; i < l->optc; ++i)
        if (!l->used[i])
            fail("`%s`: unknown option `%s`", l->argv[0], l->key[i]);
}

static void need_args(struct line *l, int n, const char *usage)
{
    if (l->argc != n)
        fail("`%s` takes %d argument%s: %s", l->argv[0], n - 1, n == 2 ? "" : "s", usage);
}

static unsigned long long parse_u64(const char *s, const char *what)
{
    char *end;
    unsigned long long v;
    if (!s || !*s || *s == '-')
        fail("%s: expected an unsigned integer, found `%s`", what, s ? s : "");
    errno = 0;
    v = strtoull(s, &end, 0);
    if (*end || errno)
        fail("%s: expected an unsigned integer, found `%s`", what, s);
    return v;
}

static unsigned int parse_u32(const char *s, const char *what)
{
    unsigned long long v = parse_u64(s, what);
    if (v > 0xffffffffull)
        fail("%s: %s does not fit 32 bits", what, s);
    return (unsigned int)v;
}

static int parse_i32(const char *s, const char *what)
{
    char *end;
    long long v;
    if (!s || !*s)
        fail("%s: expected an integer", what);
    errno = 0;
    v = strtoll(s, &end, 0);
    if (*end || errno || v < -2147483648ll || v > 2147483647ll)
        fail("%s: expected a 32-bit integer, found `%s`", what, s);
    return (int)v;
}

/* Floats go through strtof so that a shortest round-trip decimal comes back as the same
 * bits (C99 hex floats are accepted too). */
static float parse_f32(const char *s, const char *what)
{
    char *end;
    float v;
    if (!s || !*s)
        fail("%s: expected a number", what);
    v = strtof(s, &end);
    if (*end)
        fail("%s: expected a number, found `%s`", what, s);
    return v;
}

static int parse_bool(const char *s, const char *what)
{
    if (!strcmp(s, "1") || !strcmp(s, "true"))
        return 1;
    if (!strcmp(s, "0") || !strcmp(s, "false"))
        return 0;
    fail("%s: expected 0 or 1, found `%s`", what, s);
    return 0;
}

static unsigned int opt_u32(struct line *l, const char *key, unsigned int def)
{
    const char *v = opt(l, key);
    return v ? parse_u32(v, key) : def;
}

static int opt_bool(struct line *l, const char *key, int def)
{
    const char *v = opt(l, key);
    return v ? parse_bool(v, key) : def;
}

static float opt_f32(struct line *l, const char *key, float def)
{
    const char *v = opt(l, key);
    return v ? parse_f32(v, key) : def;
}

/* `first+count` (or just `first`, count 1); `all` gives (0, `all_count`). */
static void parse_range(const char *s, unsigned int all_count, unsigned int *first, unsigned int *count,
        const char *what)
{
    char buf[64], *plus;
    if (!strcmp(s, "all"))
    {
        *first = 0;
        *count = all_count;
        return;
    }
    if (strlen(s) >= sizeof(buf))
        fail("%s: `%s` is too long", what, s);
    strcpy(buf, s);
    if ((plus = strchr(buf, '+')))
    {
        *plus = 0;
        *first = parse_u32(buf, what);
        *count = parse_u32(plus + 1, what);
    }
    else
    {
        *first = parse_u32(buf, what);
        *count = 1;
    }
}

/* Splits a comma-separated list (modified in place) into at most `max` items. */
static int split_list(char *s, char **items, int max, const char *what)
{
    int n = 0;
    char *p = s;
    for (;;)
    {
        if (n == max)
            fail("%s: more than %d values", what, max);
        items[n++] = p;
        if (!(p = strchr(p, ',')))
            break;
        *p++ = 0;
    }
    return n;
}

/* ---------------------------------------------------------------- objects */

static ID3D12Device *device;
static ID3D12CommandQueue *queue;
static ID3D12CommandAllocator *allocators[2];
static ID3D12GraphicsCommandList *init_list, *list;
static ID3D12DescriptorHeap *shader_heap, *sampler_heap, *rtv_heap, *dsv_heap, *clear_heap;
static unsigned int shader_heap_used, sampler_heap_used, rtv_heap_used, dsv_heap_used, clear_heap_used;
static unsigned int shader_inc, sampler_inc, rtv_inc, dsv_inc, clear_inc;
static char plan_dir[4096];

struct resource
{
    char name[MAX_NAME];
    int line;
    ID3D12Resource *res;
    D3D12_RESOURCE_DESC desc;
    D3D12_RESOURCE_STATES state;
    unsigned int planes;
    /* The state it had when the main list first moved it, for `repeat`. */
    int in_list;
    D3D12_RESOURCE_STATES list_start_state;
};

struct shader
{
    char name[MAX_NAME];
    void *code;
    size_t size;
};

struct view
{
    char name[MAX_NAME];
    int is_dsv;
    struct resource *res;
    D3D12_CPU_DESCRIPTOR_HANDLE handle;
    D3D12_RESOURCE_STATES state;
};

enum binding_type
{
    BIND_CBV,
    BIND_SRV,
    BIND_UAV,
    BIND_SAMPLER,
};

struct binding
{
    enum binding_type type;
    unsigned int reg, space;
    struct resource *res; /* NULL for samplers and null descriptors */
    D3D12_CONSTANT_BUFFER_VIEW_DESC cbv;
    D3D12_SHADER_RESOURCE_VIEW_DESC srv;
    D3D12_UNORDERED_ACCESS_VIEW_DESC uav;
    D3D12_SAMPLER_DESC sampler;
    int null_desc;
};

struct table
{
    D3D12_SHADER_VISIBILITY visibility;
    unsigned int count;
    struct binding bindings[MAX_BINDINGS];
};

struct bindings
{
    char name[MAX_NAME];
    int line;
    unsigned int table_count;
    struct table tables[MAX_TABLES];
    ID3D12RootSignature *root_signature;
    int compute;
    int stream_output; /* D3D12_ROOT_SIGNATURE_FLAG_ALLOW_STREAM_OUTPUT */
};

struct pipeline
{
    char name[MAX_NAME];
    int compute;
    struct bindings *bindings;
    ID3D12PipelineState *pso;
};

static struct resource resources[MAX_OBJECTS];
static unsigned int resource_count;
static struct shader shaders[MAX_OBJECTS];
static unsigned int shader_count;
static struct view views[MAX_OBJECTS];
static unsigned int view_count;
static struct bindings *binding_sets[MAX_OBJECTS];
static unsigned int binding_set_count;
static struct pipeline pipelines[MAX_OBJECTS];
static unsigned int pipeline_count;
static ID3D12Resource *uploads[MAX_UPLOADS];
static unsigned int upload_count;

static void check_name(const char *name, const char *what)
{
    if (strlen(name) >= MAX_NAME)
        fail("%s name `%s` is longer than %d bytes", what, name, MAX_NAME - 1);
}

static struct resource *find_resource(const char *name)
{
    unsigned int i;
    for (i = 0; i < resource_count; ++i)
        if (!strcmp(resources[i].name, name))
            return &resources[i];
    fail("no resource named `%s` (declare it with `buffer` or `texture` first)", name);
    return NULL;
}

static struct shader *find_shader(const char *name)
{
    unsigned int i;
    for (i = 0; i < shader_count; ++i)
        if (!strcmp(shaders[i].name, name))
            return &shaders[i];
    fail("no shader named `%s`", name);
    return NULL;
}

static struct view *find_view(const char *name)
{
    unsigned int i;
    for (i = 0; i < view_count; ++i)
        if (!strcmp(views[i].name, name))
            return &views[i];
    fail("no view named `%s` (declare it with `rtv` or `dsv` first)", name);
    return NULL;
}

static struct bindings *find_bindings(const char *name)
{
    unsigned int i;
    for (i = 0; i < binding_set_count; ++i)
        if (!strcmp(binding_sets[i]->name, name))
            return binding_sets[i];
    fail("no root signature named `%s`", name);
    return NULL;
}

static struct pipeline *find_pipeline(const char *name)
{
    unsigned int i;
    for (i = 0; i < pipeline_count; ++i)
        if (!strcmp(pipelines[i].name, name))
            return &pipelines[i];
    fail("no pipeline named `%s`", name);
    return NULL;
}

static void path_of(const char *file, char *out, size_t size)
{
    int n = file[0] == '/' ? snprintf(out, size, "%s", file) : snprintf(out, size, "%s/%s", plan_dir, file);
    if (n < 0 || (size_t)n >= size)
        fail("path `%s` is too long", file);
}

static void *read_file(const char *file, size_t *size)
{
    char path[8192];
    FILE *f;
    long n;
    void *data;
    path_of(file, path, sizeof(path));
    if (!(f = fopen(path, "rb")))
        fail("cannot open `%s`: %s", file, strerror(errno));
    if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
        fail("cannot read `%s`", file);
    if (!(data = malloc(n ? (size_t)n : 1)))
        fail("out of memory reading `%s`", file);
    if (n && fread(data, 1, (size_t)n, f) != (size_t)n)
        fail("cannot read `%s`", file);
    fclose(f);
    *size = (size_t)n;
    return data;
}

/* ---------------------------------------------------------------- states */

static void transition(ID3D12GraphicsCommandList *cl, struct resource *r, D3D12_RESOURCE_STATES to)
{
    D3D12_RESOURCE_BARRIER b;
    if (cl == list && !r->in_list)
    {
        r->in_list = 1;
        r->list_start_state = r->state;
    }
    if (r->state == to)
        return;
    memset(&b, 0, sizeof(b));
    b.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    b.Transition.pResource = r->res;
    b.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    b.Transition.StateBefore = r->state;
    b.Transition.StateAfter = to;
    ID3D12GraphicsCommandList_ResourceBarrier(cl, 1, &b);
    r->state = to;
}

/* The states a draw or dispatch needs, gathered first so that a resource read in two
 * ways (a vertex buffer also sampled) takes both read states in one transition, and a
 * resource both written and read is refused: D3D12 has no state for that. */
struct use
{
    struct resource *res;
    D3D12_RESOURCE_STATES state;
};

static struct use uses[4 * MAX_BINDINGS + 64];
static unsigned int use_count;

#define WRITE_STATES (D3D12_RESOURCE_STATE_RENDER_TARGET | D3D12_RESOURCE_STATE_UNORDERED_ACCESS \
        | D3D12_RESOURCE_STATE_DEPTH_WRITE | D3D12_RESOURCE_STATE_STREAM_OUT)

static void add_use(struct resource *r, D3D12_RESOURCE_STATES s, const char *how)
{
    unsigned int i;
    for (i = 0; i < use_count; ++i)
        if (uses[i].res == r)
        {
            D3D12_RESOURCE_STATES both = uses[i].state | s;
            if (uses[i].state != s && (both & WRITE_STATES))
                fail("resource `%s` is %s and used otherwise in the same command (a D3D12 hazard)",
                        r->name, how);
            uses[i].state = both;
            return;
        }
    if (use_count == sizeof(uses) / sizeof(uses[0]))
        fail("too many resources in one command");
    uses[use_count].res = r;
    uses[use_count++].state = s;
}

static void apply_uses(void)
{
    unsigned int i;
    for (i = 0; i < use_count; ++i)
        transition(list, uses[i].res, uses[i].state);
    use_count = 0;
}

/* ---------------------------------------------------------------- resources */

static ID3D12Resource *create_buffer(D3D12_HEAP_TYPE heap, UINT64 size, D3D12_RESOURCE_FLAGS flags,
        D3D12_RESOURCE_STATES state)
{
    D3D12_HEAP_PROPERTIES hp;
    D3D12_RESOURCE_DESC d;
    ID3D12Resource *r;
    memset(&hp, 0, sizeof(hp));
    hp.Type = heap;
    memset(&d, 0, sizeof(d));
    d.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    d.Width = size ? size : 1;
    d.Height = 1;
    d.DepthOrArraySize = 1;
    d.MipLevels = 1;
    d.SampleDesc.Count = 1;
    d.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    d.Flags = flags;
    check_hr(ID3D12Device_CreateCommittedResource(device, &hp, D3D12_HEAP_FLAG_NONE, &d, state, NULL,
            &IID_ID3D12Resource, (void **)&r), "CreateCommittedResource (buffer)");
    return r;
}

static void *map(ID3D12Resource *r)
{
    void *p;
    D3D12_RANGE none = {0, 0};
    check_hr(ID3D12Resource_Map(r, 0, &none, &p), "Map");
    return p;
}

static unsigned int subresource_count(const struct resource *r)
{
    if (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_BUFFER)
        return 1;
    return r->desc.MipLevels * (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D ? 1
            : r->desc.DepthOrArraySize);
}

static int is_depth_stencil_format(DXGI_FORMAT f)
{
    return f == DXGI_FORMAT_D24_UNORM_S8_UINT || f == DXGI_FORMAT_D32_FLOAT_S8X24_UINT
            || f == DXGI_FORMAT_R24G8_TYPELESS || f == DXGI_FORMAT_R32G8X24_TYPELESS;
}

static void track_upload(ID3D12Resource *r)
{
    if (upload_count == MAX_UPLOADS)
        fail("more than %d resources with data", MAX_UPLOADS);
    uploads[upload_count++] = r;
}

/* Fills `r` from `file`: a buffer's bytes, or a texture's subresources in subresource
 * order (mip fastest, then array slice), each tightly packed (rows of RowSizeInBytes,
 * no padding). */
static void upload(struct resource *r, const char *file)
{
    size_t size;
    unsigned char *data = read_file(file, &size), *dst;
    ID3D12Resource *up;
    if (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_BUFFER)
    {
        if (size != r->desc.Width)
            fail("`%s` holds %zu bytes; buffer `%s` has %llu", file, size, r->name,
                    (unsigned long long)r->desc.Width);
        up = create_buffer(D3D12_HEAP_TYPE_UPLOAD, size, D3D12_RESOURCE_FLAG_NONE,
                D3D12_RESOURCE_STATE_GENERIC_READ);
        dst = map(up);
        memcpy(dst, data, size);
        ID3D12Resource_Unmap(up, 0, NULL);
        transition(init_list, r, D3D12_RESOURCE_STATE_COPY_DEST);
        ID3D12GraphicsCommandList_CopyBufferRegion(init_list, r->res, 0, up, 0, size);
    }
    else
    {
        static D3D12_PLACED_SUBRESOURCE_FOOTPRINT fp[MAX_SUBRESOURCES];
        static UINT rows[MAX_SUBRESOURCES];
        static UINT64 row_size[MAX_SUBRESOURCES];
        UINT64 total, tight = 0, off = 0;
        unsigned int n = subresource_count(r), i, y, z;
        if (r->desc.SampleDesc.Count > 1)
            fail("`data`: a multisampled texture cannot be filled by a copy (clear it or draw into it)");
        if (is_depth_stencil_format(r->desc.Format))
            fail("`data`: depth-stencil textures with two planes cannot be filled here");
        if (n > MAX_SUBRESOURCES)
            fail("more than %d subresources", MAX_SUBRESOURCES);
        ID3D12Device_GetCopyableFootprints(device, &r->desc, 0, n, 0, fp, rows, row_size, &total);
        for (i = 0; i < n; ++i)
            tight += row_size[i] * rows[i] * fp[i].Footprint.Depth;
        if (size != tight)
            fail("`%s` holds %zu bytes; texture `%s` has %llu (every subresource, rows unpadded)", file,
                    size, r->name, (unsigned long long)tight);
        up = create_buffer(D3D12_HEAP_TYPE_UPLOAD, total, D3D12_RESOURCE_FLAG_NONE,
                D3D12_RESOURCE_STATE_GENERIC_READ);
        dst = map(up);
        for (i = 0; i < n; ++i)
            for (z = 0; z < fp[i].Footprint.Depth; ++z)
                for (y = 0; y < rows[i]; ++y)
                {
                    memcpy(dst + fp[i].Offset + (UINT64)fp[i].Footprint.RowPitch * (y + (UINT64)z * rows[i]),
                            data + off, row_size[i]);
                    off += row_size[i];
                }
        ID3D12Resource_Unmap(up, 0, NULL);
        transition(init_list, r, D3D12_RESOURCE_STATE_COPY_DEST);
        for (i = 0; i < n; ++i)
        {
            D3D12_TEXTURE_COPY_LOCATION d, s;
            d.pResource = r->res;
            d.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
            d.SubresourceIndex = i;
            s.pResource = up;
            s.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
            s.PlacedFootprint = fp[i];
            ID3D12GraphicsCommandList_CopyTextureRegion(init_list, &d, 0, 0, 0, &s, NULL);
        }
    }
    track_upload(up);
    free(data);
}

static struct resource *new_resource(struct line *l)
{
    struct resource *r;
    unsigned int i;
    need_args(l, 2, "NAME");
    check_name(l->argv[1], "resource");
    for (i = 0; i < resource_count; ++i)
        if (!strcmp(resources[i].name, l->argv[1]))
            fail("resource `%s` is declared twice (first on line %d)", l->argv[1], resources[i].line);
    if (resource_count == MAX_OBJECTS)
        fail("more than %d resources", MAX_OBJECTS);
    r = &resources[resource_count++];
    strcpy(r->name, l->argv[1]);
    r->line = cur_line;
    r->planes = 1;
    return r;
}

/* buffer NAME size=BYTES [uav=1] [data=FILE] */
static void stmt_buffer(struct line *l)
{
    struct resource *r = new_resource(l);
    const char *size = opt(l, "size"), *data = opt(l, "data");
    int uav = opt_bool(l, "uav", 0);
    done(l);
    if (!size)
        fail("`buffer` needs `size=BYTES`");
    r->desc.Width = parse_u64(size, "size");
    if (!r->desc.Width)
        fail("`size`: a buffer has at least one byte");
    r->state = D3D12_RESOURCE_STATE_COMMON;
    r->res = create_buffer(D3D12_HEAP_TYPE_DEFAULT, r->desc.Width,
            uav ? D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS : D3D12_RESOURCE_FLAG_NONE, r->state);
    r->desc = ID3D12Resource_GetDesc(r->res);
    if (data)
        upload(r, data);
}

/* texture NAME dim=1d|2d|3d format=F width=W [height=H] [depth=D] [array=N] [mips=M]
 *         [samples=S] [rtv=1] [dsv=1] [uav=1] [data=FILE] */
static void stmt_texture(struct line *l)
{
    struct resource *r = new_resource(l);
    const char *dim = opt(l, "dim"), *format = opt(l, "format"), *data = opt(l, "data");
    D3D12_HEAP_PROPERTIES hp;
    D3D12_RESOURCE_DESC *d = &r->desc;
    unsigned int depth = opt_u32(l, "depth", 1), array = opt_u32(l, "array", 1);
    HRESULT hr;
    memset(d, 0, sizeof(*d));
    if (!dim || !format)
        fail("`texture` needs `dim=1d|2d|3d` and `format=`");
    if (!strcmp(dim, "1d"))
        d->Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE1D;
    else if (!strcmp(dim, "2d"))
        d->Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE2D;
    else if (!strcmp(dim, "3d"))
        d->Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE3D;
    else
        fail("`dim`: expected 1d, 2d or 3d, found `%s`", dim);
    if (d->Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D ? array != 1 : depth != 1)
        fail("`%s`: a %s texture has %s", d->Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D ? "array" : "depth",
                dim, d->Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D ? "a depth, not array slices"
                : "array slices, not a depth");
    d->Format = lookup(formats, format, "format");
    d->Width = opt_u32(l, "width", 0);
    d->Height = opt_u32(l, "height", 1);
    d->DepthOrArraySize = (UINT16)(d->Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D ? depth : array);
    d->MipLevels = (UINT16)opt_u32(l, "mips", 1);
    d->SampleDesc.Count = opt_u32(l, "samples", 1);
    d->Layout = D3D12_TEXTURE_LAYOUT_UNKNOWN;
    if (opt_bool(l, "rtv", 0))
        d->Flags |= D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET;
    if (opt_bool(l, "dsv", 0))
        d->Flags |= D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL;
    if (opt_bool(l, "uav", 0))
        d->Flags |= D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS;
    done(l);
    if (!d->Width || (depth | array) > 16384 || d->Height > 16384 || d->Width > 16384 || !d->MipLevels)
        fail("texture `%s`: width, height, depth, array and mips must be 1 to 16384", r->name);
    if (is_depth_stencil_format(d->Format))
        r->planes = 2;
    memset(&hp, 0, sizeof(hp));
    hp.Type = D3D12_HEAP_TYPE_DEFAULT;
    r->state = (d->Flags & D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL) ? D3D12_RESOURCE_STATE_DEPTH_WRITE
            : (d->Flags & D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET) ? D3D12_RESOURCE_STATE_RENDER_TARGET
            : D3D12_RESOURCE_STATE_COMMON;
    hr = ID3D12Device_CreateCommittedResource(device, &hp, D3D12_HEAP_FLAG_NONE, d, r->state, NULL,
            &IID_ID3D12Resource, (void **)&r->res);
    if (FAILED(hr))
        fail("texture `%s`: CreateCommittedResource failed (HRESULT %#x): the device refuses this format, "
                "size, sample count or usage", r->name, (unsigned int)hr);
    if (data)
        upload(r, data);
}

/* shader NAME FILE */
static void stmt_shader(struct line *l)
{
    struct shader *s;
    unsigned int i;
    need_args(l, 3, "NAME FILE");
    done(l);
    check_name(l->argv[1], "shader");
    for (i = 0; i < shader_count; ++i)
        if (!strcmp(shaders[i].name, l->argv[1]))
            fail("shader `%s` is declared twice", l->argv[1]);
    if (shader_count == MAX_OBJECTS)
        fail("more than %d shaders", MAX_OBJECTS);
    s = &shaders[shader_count++];
    strcpy(s->name, l->argv[1]);
    s->code = read_file(l->argv[2], &s->size);
    if (s->size < 32 || memcmp(s->code, "DXBC", 4))
        fail("`%s` is not a DXBC container", l->argv[2]);
}

/* The first slice and count of `slices=` against the resource's array size. */
static void slice_range(struct line *l, const struct resource *r, unsigned int *first, unsigned int *count)
{
    const char *s = opt(l, "slices");
    unsigned int size = r->desc.Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D ? 1 : r->desc.DepthOrArraySize;
    *first = 0;
    *count = size;
    if (s)
        parse_range(s, size, first, count, "slices");
    if (*first >= size || *count > size - *first || !*count)
        fail("`slices=%s` is outside `%s`'s %u slices", s, r->name, size);
}

/* rtv NAME resource=R [format=F] [mip=M] [slices=FIRST[+COUNT]] [wslices=FIRST+COUNT]
 * dsv NAME resource=R [format=F] [mip=M] [slices=FIRST[+COUNT]] [read_only_depth=1] [read_only_stencil=1] */
static void stmt_view(struct line *l, int is_dsv)
{
    struct view *v;
    const char *rn = opt(l, "resource"), *format = opt(l, "format");
    unsigned int mip = opt_u32(l, "mip", 0), first, count, i;
    struct resource *r;
    need_args(l, 2, "NAME");
    check_name(l->argv[1], "view");
    for (i = 0; i < view_count; ++i)
        if (!strcmp(views[i].name, l->argv[1]))
            fail("view `%s` is declared twice", l->argv[1]);
    if (!rn)
        fail("`%s` needs `resource=`", l->argv[0]);
    r = find_resource(rn);
    if (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_BUFFER)
        fail("`%s` is a buffer; render-target and depth views need a texture", rn);
    if (mip >= r->desc.MipLevels)
        fail("`mip=%u`: `%s` has %u mips", mip, rn, r->desc.MipLevels);
    if (view_count == MAX_OBJECTS || (is_dsv ? dsv_heap_used : rtv_heap_used) == VIEW_HEAP_SIZE)
        fail("too many views");
    v = &views[view_count++];
    strcpy(v->name, l->argv[1]);
    v->is_dsv = is_dsv;
    v->res = r;
    slice_range(l, r, &first, &count);
    if (is_dsv)
    {
        D3D12_DEPTH_STENCIL_VIEW_DESC d;
        memset(&d, 0, sizeof(d));
        if (!(r->desc.Flags & D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL))
            fail("`%s` was not declared with `dsv=1`", rn);
        d.Format = format ? lookup(formats, format, "format") : r->desc.Format;
        if (opt_bool(l, "read_only_depth", 0))
            d.Flags |= D3D12_DSV_FLAG_READ_ONLY_DEPTH;
        if (opt_bool(l, "read_only_stencil", 0))
            d.Flags |= D3D12_DSV_FLAG_READ_ONLY_STENCIL;
        v->state = d.Flags == (D3D12_DSV_FLAG_READ_ONLY_DEPTH | D3D12_DSV_FLAG_READ_ONLY_STENCIL)
                ? D3D12_RESOURCE_STATE_DEPTH_READ : D3D12_RESOURCE_STATE_DEPTH_WRITE;
        if (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE1D)
        {
            d.ViewDimension = D3D12_DSV_DIMENSION_TEXTURE1DARRAY;
            d.Texture1DArray.MipSlice = mip;
            d.Texture1DArray.FirstArraySlice = first;
            d.Texture1DArray.ArraySize = count;
        }
        else if (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE2D && r->desc.SampleDesc.Count > 1)
        {
            d.ViewDimension = D3D12_DSV_DIMENSION_TEXTURE2DMSARRAY;
            d.Texture2DMSArray.FirstArraySlice = first;
            d.Texture2DMSArray.ArraySize = count;
        }
        else if (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE2D)
        {
            d.ViewDimension = D3D12_DSV_DIMENSION_TEXTURE2DARRAY;
            d.Texture2DArray.MipSlice = mip;
            d.Texture2DArray.FirstArraySlice = first;
            d.Texture2DArray.ArraySize = count;
        }
        else
            fail("a depth view of a 3D texture does not exist in D3D12");
        /* A single slice is described as the plain 2D view: what most applications
         * create, and the path drivers take most. */
        if (r->desc.DepthOrArraySize == 1 && d.ViewDimension == D3D12_DSV_DIMENSION_TEXTURE2DARRAY)
        {
            d.ViewDimension = D3D12_DSV_DIMENSION_TEXTURE2D;
            d.Texture2D.MipSlice = mip;
        }
        else if (r->desc.DepthOrArraySize == 1 && d.ViewDimension == D3D12_DSV_DIMENSION_TEXTURE2DMSARRAY)
            d.ViewDimension = D3D12_DSV_DIMENSION_TEXTURE2DMS;
        v->handle = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(dsv_heap);
        v->handle.ptr += (SIZE_T)dsv_heap_used++ * dsv_inc;
        ID3D12Device_CreateDepthStencilView(device, r->res, &d, v->handle);
    }
    else
    {
        D3D12_RENDER_TARGET_VIEW_DESC d;
        const char *w = opt(l, "wslices");
        memset(&d, 0, sizeof(d));
        if (!(r->desc.Flags & D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET))
            fail("`%s` was not declared with `rtv=1`", rn);
        d.Format = format ? lookup(formats, format, "format") : r->desc.Format;
        v->state = D3D12_RESOURCE_STATE_RENDER_TARGET;
        if (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE1D)
        {
            d.ViewDimension = D3D12_RTV_DIMENSION_TEXTURE1DARRAY;
            d.Texture1DArray.MipSlice = mip;
            d.Texture1DArray.FirstArraySlice = first;
            d.Texture1DArray.ArraySize = count;
        }
        else if (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE2D && r->desc.SampleDesc.Count > 1)
        {
            d.ViewDimension = r->desc.DepthOrArraySize == 1 ? D3D12_RTV_DIMENSION_TEXTURE2DMS
                    : D3D12_RTV_DIMENSION_TEXTURE2DMSARRAY;
            d.Texture2DMSArray.FirstArraySlice = first;
            d.Texture2DMSArray.ArraySize = count;
        }
        else if (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE2D)
        {
            if (r->desc.DepthOrArraySize == 1)
            {
                d.ViewDimension = D3D12_RTV_DIMENSION_TEXTURE2D;
                d.Texture2D.MipSlice = mip;
            }
            else
            {
                d.ViewDimension = D3D12_RTV_DIMENSION_TEXTURE2DARRAY;
                d.Texture2DArray.MipSlice = mip;
                d.Texture2DArray.FirstArraySlice = first;
                d.Texture2DArray.ArraySize = count;
            }
        }
        else
        {
            unsigned int depth = r->desc.DepthOrArraySize >> mip;
            d.ViewDimension = D3D12_RTV_DIMENSION_TEXTURE3D;
            d.Texture3D.MipSlice = mip;
            d.Texture3D.FirstWSlice = 0;
            d.Texture3D.WSize = depth ? depth : 1;
            if (w)
                parse_range(w, d.Texture3D.WSize, &d.Texture3D.FirstWSlice, &d.Texture3D.WSize, "wslices");
        }
        v->handle = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(rtv_heap);
        v->handle.ptr += (SIZE_T)rtv_heap_used++ * rtv_inc;
        ID3D12Device_CreateRenderTargetView(device, r->res, &d, v->handle);
    }
    done(l);
}

/* ---------------------------------------------------------------- root signatures */

static struct bindings *open_bindings;
static struct pipeline *open_pipeline;
static D3D12_GRAPHICS_PIPELINE_STATE_DESC gdesc;
static D3D12_COMPUTE_PIPELINE_STATE_DESC cdesc;
static D3D12_INPUT_ELEMENT_DESC inputs[MAX_INPUTS];
static char input_names[MAX_INPUTS][MAX_NAME];
static D3D12_SO_DECLARATION_ENTRY so_entries[MAX_SO_ENTRIES];
static char so_names[MAX_SO_ENTRIES][MAX_NAME];
static UINT so_strides[D3D12_SO_BUFFER_SLOT_COUNT];
static int open_line;

static void parse_register(const char *s, char letter, unsigned int *reg)
{
    if (!s || s[0] != letter)
        fail("expected a `%c` register, found `%s`", letter, s ? s : "");
    *reg = parse_u32(s + 1, "register");
}

/* The view description of `srv`/`uav` lines:
 *   dim=buffer: [format=F] first=N count=N [stride=N] [raw=1]
 *   textures:   format=F [mips=FIRST+COUNT] [slices=FIRST+COUNT] [plane=P] [wslices=...] */
static void texture_view_ranges(struct line *l, struct resource *r, unsigned int *mip0, unsigned int *mips,
        unsigned int *slice0, unsigned int *slices)
{
    const char *m = opt(l, "mips");
    *mip0 = 0;
    *mips = r->desc.MipLevels;
    if (m)
        parse_range(m, r->desc.MipLevels, mip0, mips, "mips");
    if (*mip0 >= r->desc.MipLevels || *mips > r->desc.MipLevels - *mip0 || !*mips)
        fail("`mips=%s` is outside `%s`'s %u mips", m, r->name, r->desc.MipLevels);
    slice_range(l, r, slice0, slices);
}

static void bind_line(struct line *l)
{
    struct table *t;
    struct binding *b;
    const char *kind = l->argv[0], *rn;
    if (!open_bindings->table_count)
        fail("`%s` before any `table VISIBILITY` line", kind);
    t = &open_bindings->tables[open_bindings->table_count - 1];
    if (t->count == MAX_BINDINGS)
        fail("more than %d bindings in a table", MAX_BINDINGS);
    b = &t->bindings[t->count++];
    memset(b, 0, sizeof(*b));
    need_args(l, 2, "REGISTER");
    b->space = opt_u32(l, "space", 0);
    rn = opt(l, "resource");
    b->null_desc = rn && !strcmp(rn, "null");
    if (!strcmp(kind, "sampler"))
    {
        D3D12_SAMPLER_DESC *s = &b->sampler;
        const char *f = opt(l, "filter"), *a = opt(l, "address"), *border = opt(l, "border"),
                *cmp = opt(l, "comparison");
        char *items[4];
        int i, n;
        b->type = BIND_SAMPLER;
        parse_register(l->argv[1], 's', &b->reg);
        s->Filter = f ? lookup(filters, f, "filter") : D3D12_FILTER_MIN_MAG_MIP_LINEAR;
        s->AddressU = s->AddressV = s->AddressW = D3D12_TEXTURE_ADDRESS_MODE_CLAMP;
        if (a)
        {
            char buf[128];
            if (strlen(a) >= sizeof(buf))
                fail("`address` is too long");
            strcpy(buf, a);
            n = split_list(buf, items, 3, "address");
            if (n != 3)
                fail("`address` takes three modes (u,v,w)");
            s->AddressU = lookup(address_modes, items[0], "address mode");
            s->AddressV = lookup(address_modes, items[1], "address mode");
            s->AddressW = lookup(address_modes, items[2], "address mode");
        }
        s->MipLODBias = opt_f32(l, "mip_lod_bias", 0.0f);
        s->MaxAnisotropy = opt_u32(l, "max_anisotropy", 1);
        s->ComparisonFunc = cmp ? lookup(comparisons, cmp, "comparison") : D3D12_COMPARISON_FUNC_NEVER;
        if (border)
        {
            char buf[256];
            if (strlen(border) >= sizeof(buf))
                fail("`border` is too long");
            strcpy(buf, border);
            if (split_list(buf, items, 4, "border") != 4)
                fail("`border` takes four values");
            for (i = 0; i < 4; ++i)
                s->BorderColor[i] = parse_f32(items[i], "border");
        }
        s->MinLOD = opt_f32(l, "min_lod", 0.0f);
        s->MaxLOD = opt_f32(l, "max_lod", 3.402823466e+38f);
        done(l);
        return;
    }
    if (!rn)
        fail("`%s` needs `resource=NAME` (or `resource=null`)", kind);
    if (!b->null_desc)
        b->res = find_resource(rn);
    if (!strcmp(kind, "cbv"))
    {
        UINT64 size;
        b->type = BIND_CBV;
        parse_register(l->argv[1], 'b', &b->reg);
        if (b->null_desc)
            fail("`cbv`: a null constant buffer view is not supported here");
        if (b->res->desc.Dimension != D3D12_RESOURCE_DIMENSION_BUFFER)
            fail("`cbv`: `%s` is not a buffer", rn);
        b->cbv.BufferLocation = ID3D12Resource_GetGPUVirtualAddress(b->res->res) + opt_u32(l, "offset", 0);
        size = opt_u32(l, "size", (unsigned int)(b->res->desc.Width - opt_u32(l, "offset", 0)));
        /* D3D12 sizes constant buffer views in multiples of 256 bytes. */
        b->cbv.SizeInBytes = (UINT)((size + 255) & ~(UINT64)255);
        if (opt_u32(l, "offset", 0) % 256 || opt_u32(l, "offset", 0) + (UINT64)b->cbv.SizeInBytes
                > b->res->desc.Width)
            fail("`cbv`: the view (offset a multiple of 256, size rounded up to 256) must lie inside `%s` "
                    "(%llu bytes; declare the buffer with a size rounded up to 256)", rn,
                    (unsigned long long)b->res->desc.Width);
        done(l);
        return;
    }
    if (!strcmp(kind, "srv"))
    {
        D3D12_SHADER_RESOURCE_VIEW_DESC *d = &b->srv;
        const char *dim = opt(l, "dim"), *format = opt(l, "format");
        unsigned int mip0, mips, slice0, slices;
        b->type = BIND_SRV;
        parse_register(l->argv[1], 't', &b->reg);
        if (!dim)
            fail("`srv` needs `dim=`");
        d->ViewDimension = lookup(srv_dims, dim, "view dimension");
        d->Format = format ? lookup(formats, format, "format") : DXGI_FORMAT_UNKNOWN;
        d->Shader4ComponentMapping = D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING;
        if (d->ViewDimension == D3D12_SRV_DIMENSION_BUFFER)
        {
            d->Buffer.FirstElement = opt_u32(l, "first", 0);
            d->Buffer.NumElements = opt_u32(l, "count", 0);
            d->Buffer.StructureByteStride = opt_u32(l, "stride", 0);
            if (opt_bool(l, "raw", 0))
                d->Buffer.Flags = D3D12_BUFFER_SRV_FLAG_RAW;
            done(l);
            return;
        }
        if (b->null_desc)
        {
            opt(l, "mips");
            opt(l, "slices");
            opt(l, "plane");
            done(l);
            return;
        }
        if (b->res->desc.Dimension == D3D12_RESOURCE_DIMENSION_BUFFER)
            fail("`srv`: `%s` is a buffer; give `dim=buffer`", rn);
        texture_view_ranges(l, b->res, &mip0, &mips, &slice0, &slices);
        switch (d->ViewDimension)
        {
            case D3D12_SRV_DIMENSION_TEXTURE1D:
                d->Texture1D.MostDetailedMip = mip0;
                d->Texture1D.MipLevels = mips;
                break;
            case D3D12_SRV_DIMENSION_TEXTURE1DARRAY:
                d->Texture1DArray.MostDetailedMip = mip0;
                d->Texture1DArray.MipLevels = mips;
                d->Texture1DArray.FirstArraySlice = slice0;
                d->Texture1DArray.ArraySize = slices;
                break;
            case D3D12_SRV_DIMENSION_TEXTURE2D:
                d->Texture2D.MostDetailedMip = mip0;
                d->Texture2D.MipLevels = mips;
                d->Texture2D.PlaneSlice = opt_u32(l, "plane", 0);
                break;
            case D3D12_SRV_DIMENSION_TEXTURE2DARRAY:
                d->Texture2DArray.MostDetailedMip = mip0;
                d->Texture2DArray.MipLevels = mips;
                d->Texture2DArray.FirstArraySlice = slice0;
                d->Texture2DArray.ArraySize = slices;
                d->Texture2DArray.PlaneSlice = opt_u32(l, "plane", 0);
                break;
            case D3D12_SRV_DIMENSION_TEXTURE2DMS:
                break;
            case D3D12_SRV_DIMENSION_TEXTURE2DMSARRAY:
                d->Texture2DMSArray.FirstArraySlice = slice0;
                d->Texture2DMSArray.ArraySize = slices;
                break;
            case D3D12_SRV_DIMENSION_TEXTURE3D:
                d->Texture3D.MostDetailedMip = mip0;
                d->Texture3D.MipLevels = mips;
                break;
            case D3D12_SRV_DIMENSION_TEXTURECUBE:
                d->TextureCube.MostDetailedMip = mip0;
                d->TextureCube.MipLevels = mips;
                break;
            case D3D12_SRV_DIMENSION_TEXTURECUBEARRAY:
                d->TextureCubeArray.MostDetailedMip = mip0;
                d->TextureCubeArray.MipLevels = mips;
                d->TextureCubeArray.First2DArrayFace = slice0;
                d->TextureCubeArray.NumCubes = slices / 6;
                break;
            default:
                break;
        }
        done(l);
        return;
    }
    if (!strcmp(kind, "uav"))
    {
        D3D12_UNORDERED_ACCESS_VIEW_DESC *d = &b->uav;
        const char *dim = opt(l, "dim"), *format = opt(l, "format");
        unsigned int mip0, mips, slice0, slices;
        b->type = BIND_UAV;
        parse_register(l->argv[1], 'u', &b->reg);
        if (!dim)
            fail("`uav` needs `dim=`");
        d->ViewDimension = lookup(uav_dims, dim, "view dimension");
        d->Format = format ? lookup(formats, format, "format") : DXGI_FORMAT_UNKNOWN;
        if (d->ViewDimension == D3D12_UAV_DIMENSION_BUFFER)
        {
            d->Buffer.FirstElement = opt_u32(l, "first", 0);
            d->Buffer.NumElements = opt_u32(l, "count", 0);
            d->Buffer.StructureByteStride = opt_u32(l, "stride", 0);
            if (opt_bool(l, "raw", 0))
                d->Buffer.Flags = D3D12_BUFFER_UAV_FLAG_RAW;
            done(l);
            return;
        }
        if (b->null_desc)
        {
            opt(l, "mips");
            opt(l, "slices");
            done(l);
            return;
        }
        texture_view_ranges(l, b->res, &mip0, &mips, &slice0, &slices);
        switch (d->ViewDimension)
        {
            case D3D12_UAV_DIMENSION_TEXTURE1D:
                d->Texture1D.MipSlice = mip0;
                break;
            case D3D12_UAV_DIMENSION_TEXTURE1DARRAY:
                d->Texture1DArray.MipSlice = mip0;
                d->Texture1DArray.FirstArraySlice = slice0;
                d->Texture1DArray.ArraySize = slices;
                break;
            case D3D12_UAV_DIMENSION_TEXTURE2D:
                d->Texture2D.MipSlice = mip0;
                break;
            case D3D12_UAV_DIMENSION_TEXTURE2DARRAY:
                d->Texture2DArray.MipSlice = mip0;
                d->Texture2DArray.FirstArraySlice = slice0;
                d->Texture2DArray.ArraySize = slices;
                break;
            case D3D12_UAV_DIMENSION_TEXTURE3D:
            {
                unsigned int depth = b->res->desc.DepthOrArraySize >> mip0;
                const char *w = opt(l, "wslices");
                d->Texture3D.MipSlice = mip0;
                d->Texture3D.WSize = depth ? depth : 1;
                if (w)
                    parse_range(w, d->Texture3D.WSize, &d->Texture3D.FirstWSlice, &d->Texture3D.WSize, "wslices");
                break;
            }
            default:
                break;
        }
        done(l);
        return;
    }
    fail("unknown binding `%s` (cbv, srv, uav, sampler)", kind);
}

/* One descriptor table of CBV/SRV/UAV ranges and one of samplers per `table` block, each
 * binding a range of one descriptor at its table offset. */
static void finish_bindings(struct bindings *bs)
{
    D3D12_ROOT_PARAMETER params[2 * MAX_TABLES];
    static D3D12_DESCRIPTOR_RANGE ranges[MAX_TABLES][MAX_BINDINGS];
    D3D12_ROOT_SIGNATURE_DESC rs;
    ID3DBlob *blob = NULL, *err = NULL;
    unsigned int t, i, np = 0;
    HRESULT hr;
    for (t = 0; t < bs->table_count; ++t)
    {
        struct table *tb = &bs->tables[t];
        unsigned int views = 0, samplers = 0;
        for (i = 0; i < tb->count; ++i)
        {
            struct binding *b = &tb->bindings[i];
            D3D12_DESCRIPTOR_RANGE *r = &ranges[t][i];
            r->NumDescriptors = 1;
            r->BaseShaderRegister = b->reg;
            r->RegisterSpace = b->space;
            r->RangeType = b->type == BIND_CBV ? D3D12_DESCRIPTOR_RANGE_TYPE_CBV
                    : b->type == BIND_SRV ? D3D12_DESCRIPTOR_RANGE_TYPE_SRV
                    : b->type == BIND_UAV ? D3D12_DESCRIPTOR_RANGE_TYPE_UAV
                    : D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER;
            r->OffsetInDescriptorsFromTableStart = b->type == BIND_SAMPLER ? samplers++ : views++;
        }
        /* Views first, then samplers: the order `set_pipeline` binds them in. */
        for (i = 0; i < 2; ++i)
        {
            unsigned int k, n = 0;
            static D3D12_DESCRIPTOR_RANGE sorted[2][MAX_TABLES][MAX_BINDINGS];
            for (k = 0; k < tb->count; ++k)
                if ((tb->bindings[k].type == BIND_SAMPLER) == (i == 1))
                    sorted[i][t][n++] = ranges[t][k];
            if (!n)
                continue;
            params[np].ParameterType = D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE;
            params[np].DescriptorTable.NumDescriptorRanges = n;
            params[np].DescriptorTable.pDescriptorRanges = sorted[i][t];
            params[np].ShaderVisibility = tb->visibility;
            ++np;
        }
    }
    memset(&rs, 0, sizeof(rs));
    rs.NumParameters = np;
    rs.pParameters = params;
    rs.Flags = bs->compute ? D3D12_ROOT_SIGNATURE_FLAG_NONE : D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT;
    if (bs->stream_output)
        rs.Flags |= D3D12_ROOT_SIGNATURE_FLAG_ALLOW_STREAM_OUTPUT;
    hr = D3D12SerializeRootSignature(&rs, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, &err);
    if (FAILED(hr))
        fail("root signature `%s`: D3D12SerializeRootSignature failed (HRESULT %#x)%s%s", bs->name,
                (unsigned int)hr, err ? ": " : "", err ? (const char *)ID3D10Blob_GetBufferPointer(err) : "");
    check_hr(ID3D12Device_CreateRootSignature(device, 0, ID3D10Blob_GetBufferPointer(blob),
            ID3D10Blob_GetBufferSize(blob), &IID_ID3D12RootSignature, (void **)&bs->root_signature),
            "CreateRootSignature");
    ID3D10Blob_Release(blob);
}

/* ---------------------------------------------------------------- pipelines */

static D3D12_SHADER_BYTECODE bytecode(struct line *l)
{
    D3D12_SHADER_BYTECODE b;
    struct shader *s;
    need_args(l, 2, "SHADER");
    s = find_shader(l->argv[1]);
    b.pShaderBytecode = s->code;
    b.BytecodeLength = s->size;
    return b;
}

static void stencil_face(struct line *l, D3D12_DEPTH_STENCILOP_DESC *f)
{
    const char *v;
    if ((v = opt(l, "fail")))
        f->StencilFailOp = lookup(stencil_ops, v, "stencil op");
    if ((v = opt(l, "depth_fail")))
        f->StencilDepthFailOp = lookup(stencil_ops, v, "stencil op");
    if ((v = opt(l, "pass")))
        f->StencilPassOp = lookup(stencil_ops, v, "stencil op");
    if ((v = opt(l, "func")))
        f->StencilFunc = lookup(comparisons, v, "comparison");
}

static void open_pipeline_block(struct line *l)
{
    struct pipeline *p;
    unsigned int i;
    need_args(l, 3, "NAME graphics|compute");
    done(l);
    check_name(l->argv[1], "pipeline");
    for (i = 0; i < pipeline_count; ++i)
        if (!strcmp(pipelines[i].name, l->argv[1]))
            fail("pipeline `%s` is declared twice", l->argv[1]);
    if (pipeline_count == MAX_OBJECTS)
        fail("more than %d pipelines", MAX_OBJECTS);
    p = &pipelines[pipeline_count++];
    memset(p, 0, sizeof(*p));
    strcpy(p->name, l->argv[1]);
    if (!strcmp(l->argv[2], "compute"))
        p->compute = 1;
    else if (strcmp(l->argv[2], "graphics"))
        fail("a pipeline is `graphics` or `compute`, not `%s`", l->argv[2]);
    open_pipeline = p;
    open_line = cur_line;
    memset(&gdesc, 0, sizeof(gdesc));
    memset(&cdesc, 0, sizeof(cdesc));
    /* CD3DX12's defaults (D3D12_DEFAULT) for every state a plan leaves out. */
    gdesc.RasterizerState.FillMode = D3D12_FILL_MODE_SOLID;
    gdesc.RasterizerState.CullMode = D3D12_CULL_MODE_BACK;
    gdesc.RasterizerState.DepthClipEnable = TRUE;
    for (i = 0; i < 8; ++i)
    {
        D3D12_RENDER_TARGET_BLEND_DESC *b = &gdesc.BlendState.RenderTarget[i];
        b->SrcBlend = b->SrcBlendAlpha = D3D12_BLEND_ONE;
        b->DestBlend = b->DestBlendAlpha = D3D12_BLEND_ZERO;
        b->BlendOp = b->BlendOpAlpha = D3D12_BLEND_OP_ADD;
        b->LogicOp = D3D12_LOGIC_OP_NOOP;
        b->RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL;
    }
    gdesc.DepthStencilState.DepthEnable = FALSE;
    gdesc.DepthStencilState.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ALL;
    gdesc.DepthStencilState.DepthFunc = D3D12_COMPARISON_FUNC_LESS;
    gdesc.DepthStencilState.StencilReadMask = 0xff;
    gdesc.DepthStencilState.StencilWriteMask = 0xff;
    gdesc.DepthStencilState.FrontFace.StencilFailOp = D3D12_STENCIL_OP_KEEP;
    gdesc.DepthStencilState.FrontFace.StencilDepthFailOp = D3D12_STENCIL_OP_KEEP;
    gdesc.DepthStencilState.FrontFace.StencilPassOp = D3D12_STENCIL_OP_KEEP;
    gdesc.DepthStencilState.FrontFace.StencilFunc = D3D12_COMPARISON_FUNC_ALWAYS;
    gdesc.DepthStencilState.BackFace = gdesc.DepthStencilState.FrontFace;
    gdesc.SampleMask = 0xffffffff;
    gdesc.SampleDesc.Count = 1;
    gdesc.PrimitiveTopologyType = D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE;
    gdesc.InputLayout.pInputElementDescs = inputs;
    gdesc.StreamOutput.pSODeclaration = so_entries;
    gdesc.StreamOutput.pBufferStrides = so_strides;
}

static void pipeline_line(struct line *l)
{
    struct pipeline *p = open_pipeline;
    const char *k = l->argv[0], *v;
    D3D12_RASTERIZER_DESC *rs = &gdesc.RasterizerState;
    D3D12_DEPTH_STENCIL_DESC *ds = &gdesc.DepthStencilState;
    if (!strcmp(k, "root_signature"))
    {
        need_args(l, 2, "NAME");
        p->bindings = find_bindings(l->argv[1]);
        if (p->bindings->compute != p->compute)
            fail("root signature `%s` is for %s pipelines", l->argv[1], p->bindings->compute ? "compute" : "graphics");
    }
    else if (!strcmp(k, "cs") && p->compute)
        cdesc.CS = bytecode(l);
    else if (p->compute)
        fail("`%s` is not a line of a compute pipeline (root_signature, cs)", k);
    else if (!strcmp(k, "vs"))
        gdesc.VS = bytecode(l);
    else if (!strcmp(k, "ps"))
        gdesc.PS = bytecode(l);
    else if (!strcmp(k, "gs"))
        gdesc.GS = bytecode(l);
    else if (!strcmp(k, "hs"))
        gdesc.HS = bytecode(l);
    else if (!strcmp(k, "ds"))
        gdesc.DS = bytecode(l);
    else if (!strcmp(k, "input"))
    {
        /* input SEMANTIC INDEX FORMAT [slot=S] [offset=O|append] [instance_step=N] */
        D3D12_INPUT_ELEMENT_DESC *e;
        unsigned int n = gdesc.InputLayout.NumElements;
        need_args(l, 4, "SEMANTIC INDEX FORMAT");
        if (n == MAX_INPUTS)
            fail("more than %d input elements", MAX_INPUTS);
        check_name(l->argv[1], "semantic");
        strcpy(input_names[n], l->argv[1]);
        e = &inputs[n];
        e->SemanticName = input_names[n];
        e->SemanticIndex = parse_u32(l->argv[2], "semantic index");
        e->Format = lookup(formats, l->argv[3], "format");
        e->InputSlot = opt_u32(l, "slot", 0);
        v = opt(l, "offset");
        e->AlignedByteOffset = !v || !strcmp(v, "append") ? D3D12_APPEND_ALIGNED_ELEMENT : parse_u32(v, "offset");
        e->InstanceDataStepRate = opt_u32(l, "instance_step", 0);
        e->InputSlotClass = e->InstanceDataStepRate ? D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA
                : D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA;
        gdesc.InputLayout.NumElements = n + 1;
    }
    else if (!strcmp(k, "so_entry"))
    {
        /* so_entry SEMANTIC INDEX [stream=S] [start=C] [count=N] [slot=K]; SEMANTIC `-` is a gap of
         * `count` components. */
        D3D12_SO_DECLARATION_ENTRY *e;
        unsigned int n = gdesc.StreamOutput.NumEntries;
        need_args(l, 3, "SEMANTIC|- INDEX [stream=S] [start=C] [count=N] [slot=K]");
        if (n == MAX_SO_ENTRIES)
            fail("more than %d stream-output entries", MAX_SO_ENTRIES);
        e = &so_entries[n];
        memset(e, 0, sizeof(*e));
        if (strcmp(l->argv[1], "-"))
        {
            check_name(l->argv[1], "semantic");
            strcpy(so_names[n], l->argv[1]);
            e->SemanticName = so_names[n];
        }
        e->SemanticIndex = parse_u32(l->argv[2], "semantic index");
        e->Stream = opt_u32(l, "stream", 0);
        e->StartComponent = (BYTE)opt_u32(l, "start", 0);
        e->ComponentCount = (BYTE)opt_u32(l, "count", 4);
        e->OutputSlot = (BYTE)opt_u32(l, "slot", 0);
        if (e->Stream > 3 || e->StartComponent > 3 || !e->ComponentCount || e->StartComponent + e->ComponentCount > 4
                || e->OutputSlot >= D3D12_SO_BUFFER_SLOT_COUNT)
            fail("`so_entry`: streams 0 to 3, components start+count within 4, slots 0 to 3");
        gdesc.StreamOutput.NumEntries = n + 1;
    }
    else if (!strcmp(k, "so_strides"))
    {
        int i;
        if (l->argc < 2 || l->argc > 1 + D3D12_SO_BUFFER_SLOT_COUNT)
            fail("`so_strides` takes 1 to %d strides in bytes", D3D12_SO_BUFFER_SLOT_COUNT);
        for (i = 1; i < l->argc; ++i)
            so_strides[i - 1] = parse_u32(l->argv[i], "stride");
        gdesc.StreamOutput.NumStrides = l->argc - 1;
    }
    else if (!strcmp(k, "rasterized_stream"))
    {
        need_args(l, 2, "N|none");
        gdesc.StreamOutput.RasterizedStream = !strcmp(l->argv[1], "none") ? D3D12_SO_NO_RASTERIZED_STREAM
                : parse_u32(l->argv[1], "rasterized stream");
    }
    else if (!strcmp(k, "topology_type"))
    {
        need_args(l, 2, "point|line|triangle|patch");
        gdesc.PrimitiveTopologyType = lookup(topology_types, l->argv[1], "topology type");
    }
    else if (!strcmp(k, "strip_cut"))
    {
        need_args(l, 2, "disabled|0xffff|0xffffffff");
        gdesc.IBStripCutValue = !strcmp(l->argv[1], "disabled") ? D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_DISABLED
                : !strcmp(l->argv[1], "0xffff") ? D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_0xFFFF
                : !strcmp(l->argv[1], "0xffffffff") ? D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_0xFFFFFFFF
                : (fail("`strip_cut`: disabled, 0xffff or 0xffffffff"), 0);
    }
    else if (!strcmp(k, "rasterizer"))
    {
        need_args(l, 1, "key=value ...");
        if ((v = opt(l, "fill")))
            rs->FillMode = !strcmp(v, "solid") ? D3D12_FILL_MODE_SOLID : !strcmp(v, "wireframe")
                    ? D3D12_FILL_MODE_WIREFRAME : (fail("`fill`: solid or wireframe"), 0);
        if ((v = opt(l, "cull")))
            rs->CullMode = !strcmp(v, "none") ? D3D12_CULL_MODE_NONE : !strcmp(v, "front") ? D3D12_CULL_MODE_FRONT
                    : !strcmp(v, "back") ? D3D12_CULL_MODE_BACK : (fail("`cull`: none, front or back"), 0);
        rs->FrontCounterClockwise = opt_bool(l, "front_ccw", rs->FrontCounterClockwise);
        if ((v = opt(l, "depth_bias")))
            rs->DepthBias = parse_i32(v, "depth_bias");
        rs->DepthBiasClamp = opt_f32(l, "depth_bias_clamp", rs->DepthBiasClamp);
        rs->SlopeScaledDepthBias = opt_f32(l, "slope_scaled_depth_bias", rs->SlopeScaledDepthBias);
        rs->DepthClipEnable = opt_bool(l, "depth_clip", rs->DepthClipEnable);
        rs->MultisampleEnable = opt_bool(l, "multisample", rs->MultisampleEnable);
        rs->AntialiasedLineEnable = opt_bool(l, "antialiased_line", rs->AntialiasedLineEnable);
        rs->ForcedSampleCount = opt_u32(l, "forced_sample_count", rs->ForcedSampleCount);
        rs->ConservativeRaster = opt_bool(l, "conservative", 0) ? D3D12_CONSERVATIVE_RASTERIZATION_MODE_ON
                : D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF;
    }
    else if (!strcmp(k, "blend"))
    {
        need_args(l, 1, "key=value ...");
        gdesc.BlendState.AlphaToCoverageEnable = opt_bool(l, "alpha_to_coverage", 0);
        gdesc.BlendState.IndependentBlendEnable = opt_bool(l, "independent", 0);
    }
    else if (!strcmp(k, "blend_target"))
    {
        D3D12_RENDER_TARGET_BLEND_DESC *b;
        unsigned int i;
        need_args(l, 2, "INDEX key=value ...");
        if ((i = parse_u32(l->argv[1], "render target")) >= 8)
            fail("`blend_target %u`: render targets are 0 to 7", i);
        b = &gdesc.BlendState.RenderTarget[i];
        b->BlendEnable = opt_bool(l, "enable", b->BlendEnable);
        b->LogicOpEnable = opt_bool(l, "logic_op_enable", b->LogicOpEnable);
        if ((v = opt(l, "src")))
            b->SrcBlend = lookup(blends, v, "blend factor");
        if ((v = opt(l, "dest")))
            b->DestBlend = lookup(blends, v, "blend factor");
        if ((v = opt(l, "op")))
            b->BlendOp = lookup(blend_ops, v, "blend op");
        if ((v = opt(l, "src_alpha")))
            b->SrcBlendAlpha = lookup(blends, v, "blend factor");
        if ((v = opt(l, "dest_alpha")))
            b->DestBlendAlpha = lookup(blends, v, "blend factor");
        if ((v = opt(l, "op_alpha")))
            b->BlendOpAlpha = lookup(blend_ops, v, "blend op");
        if ((v = opt(l, "logic_op")))
            b->LogicOp = lookup(logic_ops, v, "logic op");
        if ((v = opt(l, "write_mask")))
        {
            unsigned int m = parse_u32(v, "write_mask");
            if (m > 15)
                fail("`write_mask`: 0 to 15");
            b->RenderTargetWriteMask = (UINT8)m;
        }
    }
    else if (!strcmp(k, "depth_stencil"))
    {
        need_args(l, 1, "key=value ...");
        ds->DepthEnable = opt_bool(l, "depth", ds->DepthEnable);
        if ((v = opt(l, "write")))
            ds->DepthWriteMask = parse_bool(v, "write") ? D3D12_DEPTH_WRITE_MASK_ALL : D3D12_DEPTH_WRITE_MASK_ZERO;
        if ((v = opt(l, "func")))
            ds->DepthFunc = lookup(comparisons, v, "comparison");
        ds->StencilEnable = opt_bool(l, "stencil", ds->StencilEnable);
        if ((v = opt(l, "read_mask")))
            ds->StencilReadMask = (UINT8)parse_u32(v, "read_mask");
        if ((v = opt(l, "write_mask")))
            ds->StencilWriteMask = (UINT8)parse_u32(v, "write_mask");
    }
    else if (!strcmp(k, "stencil_face"))
    {
        need_args(l, 2, "front|back key=value ...");
        if (!strcmp(l->argv[1], "front"))
            stencil_face(l, &ds->FrontFace);
        else if (!strcmp(l->argv[1], "back"))
            stencil_face(l, &ds->BackFace);
        else
            fail("`stencil_face`: front or back");
    }
    else if (!strcmp(k, "sample_desc"))
    {
        need_args(l, 1, "count=N quality=Q");
        gdesc.SampleDesc.Count = opt_u32(l, "count", 1);
        gdesc.SampleDesc.Quality = opt_u32(l, "quality", 0);
    }
    else if (!strcmp(k, "sample_mask"))
    {
        need_args(l, 2, "MASK");
        gdesc.SampleMask = parse_u32(l->argv[1], "sample_mask");
    }
    else if (!strcmp(k, "render_target_formats"))
    {
        int i;
        if (l->argc > 9)
            fail("at most 8 render-target formats");
        for (i = 1; i < l->argc; ++i)
            gdesc.RTVFormats[i - 1] = lookup(formats, l->argv[i], "format");
        gdesc.NumRenderTargets = l->argc - 1;
    }
    else if (!strcmp(k, "depth_stencil_format"))
    {
        need_args(l, 2, "FORMAT");
        gdesc.DSVFormat = lookup(formats, l->argv[1], "format");
    }
    else
        fail("`%s` is not a line of a graphics pipeline", k);
    done(l);
}

static void close_pipeline(void)
{
    struct pipeline *p = open_pipeline;
    HRESULT hr;
    if (!p->bindings)
        fail("pipeline `%s` has no `root_signature` line", p->name);
    if (p->compute)
    {
        if (!cdesc.CS.pShaderBytecode)
            fail("compute pipeline `%s` has no `cs`", p->name);
        cdesc.pRootSignature = p->bindings->root_signature;
        hr = ID3D12Device_CreateComputePipelineState(device, &cdesc, &IID_ID3D12PipelineState, (void **)&p->pso);
    }
    else
    {
        if (!gdesc.VS.pShaderBytecode)
            fail("graphics pipeline `%s` has no `vs`", p->name);
        gdesc.pRootSignature = p->bindings->root_signature;
        hr = ID3D12Device_CreateGraphicsPipelineState(device, &gdesc, &IID_ID3D12PipelineState, (void **)&p->pso);
    }
    if (FAILED(hr))
        fail("pipeline `%s`: Create%sPipelineState failed (HRESULT %#x)", p->name, p->compute ? "Compute" : "Graphics",
                (unsigned int)hr);
    open_pipeline = NULL;
}

/* ---------------------------------------------------------------- commands */

static struct pipeline *current_pipeline;
static struct view *current_rtvs[8], *current_dsv;
static unsigned int current_rtv_count;
static struct resource *current_vbs[32], *current_ib;
static struct resource *current_so[D3D12_SO_BUFFER_SLOT_COUNT], *current_so_counters[D3D12_SO_BUFFER_SLOT_COUNT];
static int uav_written;

/* Writes the current pipeline's descriptors into fresh slots of the shader-visible heaps
 * (vkd3d reads descriptors when a table is set, so slots are never reused) and sets the
 * root signature's tables. */
static void bind_tables(struct pipeline *p)
{
    struct bindings *bs = p->bindings;
    unsigned int t, i, param = 0;
    ID3D12DescriptorHeap *heaps[2] = {shader_heap, sampler_heap};
    ID3D12GraphicsCommandList_SetDescriptorHeaps(list, 2, heaps);
    if (p->compute)
        ID3D12GraphicsCommandList_SetComputeRootSignature(list, bs->root_signature);
    else
        ID3D12GraphicsCommandList_SetGraphicsRootSignature(list, bs->root_signature);
    for (t = 0; t < bs->table_count; ++t)
    {
        struct table *tb = &bs->tables[t];
        int pass;
        for (pass = 0; pass < 2; ++pass)
        {
            ID3D12DescriptorHeap *heap = pass ? sampler_heap : shader_heap;
            unsigned int *used = pass ? &sampler_heap_used : &shader_heap_used;
            unsigned int inc = pass ? sampler_inc : shader_inc, n = 0, size = pass ? SAMPLER_HEAP_SIZE : SHADER_HEAP_SIZE;
            D3D12_CPU_DESCRIPTOR_HANDLE cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(heap);
            D3D12_GPU_DESCRIPTOR_HANDLE gpu = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(heap);
            for (i = 0; i < tb->count; ++i)
                n += (tb->bindings[i].type == BIND_SAMPLER) == (pass == 1);
            if (!n)
                continue;
            if (*used + n > size)
                fail("descriptor heap full: more than %u descriptors over the plan", size);
            cpu.ptr += (SIZE_T)*used * inc;
            gpu.ptr += (UINT64)*used * inc;
            if (p->compute)
                ID3D12GraphicsCommandList_SetComputeRootDescriptorTable(list, param, gpu);
            else
                ID3D12GraphicsCommandList_SetGraphicsRootDescriptorTable(list, param, gpu);
            ++param;
            *used += n;
            for (i = 0; i < tb->count; ++i)
            {
                struct binding *b = &tb->bindings[i];
                ID3D12Resource *res = b->res && !b->null_desc ? b->res->res : NULL;
                if ((b->type == BIND_SAMPLER) != (pass == 1))
                    continue;
                switch (b->type)
                {
                    case BIND_CBV:
                        ID3D12Device_CreateConstantBufferView(device, &b->cbv, cpu);
                        break;
                    case BIND_SRV:
                        ID3D12Device_CreateShaderResourceView(device, res, &b->srv, cpu);
                        break;
                    case BIND_UAV:
                        ID3D12Device_CreateUnorderedAccessView(device, res, NULL, &b->uav, cpu);
                        break;
                    case BIND_SAMPLER:
                        ID3D12Device_CreateSampler(device, &b->sampler, cpu);
                        break;
                }
                cpu.ptr += inc;
            }
        }
    }
}

static void add_binding_uses(struct pipeline *p)
{
    struct bindings *bs = p->bindings;
    unsigned int t, i;
    for (t = 0; t < bs->table_count; ++t)
        for (i = 0; i < bs->tables[t].count; ++i)
        {
            struct binding *b = &bs->tables[t].bindings[i];
            if (!b->res || b->null_desc)
                continue;
            if (b->type == BIND_CBV)
                add_use(b->res, D3D12_RESOURCE_STATE_VERTEX_AND_CONSTANT_BUFFER, "a constant buffer");
            else if (b->type == BIND_SRV)
                add_use(b->res, D3D12_RESOURCE_STATE_PIXEL_SHADER_RESOURCE
                        | D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE, "a shader resource");
            else if (b->type == BIND_UAV)
                add_use(b->res, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, "an unordered-access view");
        }
}

static void uav_barrier(void)
{
    D3D12_RESOURCE_BARRIER b;
    if (!uav_written)
        return;
    memset(&b, 0, sizeof(b));
    b.Type = D3D12_RESOURCE_BARRIER_TYPE_UAV;
    ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &b);
    uav_written = 0;
}

static int pipeline_writes_uavs(struct pipeline *p)
{
    unsigned int t, i;
    for (t = 0; t < p->bindings->table_count; ++t)
        for (i = 0; i < p->bindings->tables[t].count; ++i)
            if (p->bindings->tables[t].bindings[i].type == BIND_UAV)
                return 1;
    return 0;
}

static void before_draw(void)
{
    unsigned int i;
    if (!current_pipeline || current_pipeline->compute)
        fail("a draw needs a graphics pipeline (`set_pipeline`)");
    add_binding_uses(current_pipeline);
    for (i = 0; i < 32; ++i)
        if (current_vbs[i])
            add_use(current_vbs[i], D3D12_RESOURCE_STATE_VERTEX_AND_CONSTANT_BUFFER, "a vertex buffer");
    for (i = 0; i < current_rtv_count; ++i)
        if (current_rtvs[i])
            add_use(current_rtvs[i]->res, D3D12_RESOURCE_STATE_RENDER_TARGET, "a render target");
    if (current_dsv)
        add_use(current_dsv->res, current_dsv->state, "a depth-stencil target");
    for (i = 0; i < D3D12_SO_BUFFER_SLOT_COUNT; ++i)
        if (current_so[i])
        {
            add_use(current_so[i], D3D12_RESOURCE_STATE_STREAM_OUT, "a stream-output buffer");
            add_use(current_so_counters[i], D3D12_RESOURCE_STATE_STREAM_OUT, "a stream-output counter");
        }
    uav_barrier();
    apply_uses();
    if (pipeline_writes_uavs(current_pipeline))
        uav_written = 1;
}

static void set_render_targets(void)
{
    D3D12_CPU_DESCRIPTOR_HANDLE rt[8];
    unsigned int i;
    for (i = 0; i < current_rtv_count; ++i)
        rt[i] = current_rtvs[i]->handle;
    ID3D12GraphicsCommandList_OMSetRenderTargets(list, current_rtv_count, rt, FALSE,
            current_dsv ? &current_dsv->handle : NULL);
}

static void copy_location(struct line *l, const char *res_name, const char *where, D3D12_TEXTURE_COPY_LOCATION *loc,
        struct resource **out)
{
    struct resource *r = find_resource(res_name);
    *out = r;
    loc->pResource = r->res;
    if (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_BUFFER)
    {
        /* A buffer side is a placed footprint: OFFSET,FORMAT,WIDTH,HEIGHT,DEPTH,ROW_PITCH. */
        char buf[256], *items[6];
        if (strlen(where) >= sizeof(buf))
            fail("footprint `%s` is too long", where);
        strcpy(buf, where);
        if (split_list(buf, items, 6, "footprint") != 6)
            fail("`%s`: a buffer's side of a texture copy is OFFSET,FORMAT,WIDTH,HEIGHT,DEPTH,ROW_PITCH", l->argv[0]);
        loc->Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
        loc->PlacedFootprint.Offset = parse_u64(items[0], "footprint offset");
        loc->PlacedFootprint.Footprint.Format = lookup(formats, items[1], "format");
        loc->PlacedFootprint.Footprint.Width = parse_u32(items[2], "footprint width");
        loc->PlacedFootprint.Footprint.Height = parse_u32(items[3], "footprint height");
        loc->PlacedFootprint.Footprint.Depth = parse_u32(items[4], "footprint depth");
        loc->PlacedFootprint.Footprint.RowPitch = parse_u32(items[5], "footprint row pitch");
    }
    else
    {
        loc->Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
        loc->SubresourceIndex = parse_u32(where, "subresource");
        if (loc->SubresourceIndex >= subresource_count(r) * r->planes)
            fail("subresource %u: `%s` has %u", loc->SubresourceIndex, r->name, subresource_count(r) * r->planes);
    }
}

/* clear_unordered_access uint|float V0,V1,V2,V3 resource=R dim=D [the `uav` binding's view options] */
static void clear_unordered_access(struct line *l)
{
    static struct bindings scratch;
    struct bindings *was = open_bindings;
    struct line m = *l;
    struct binding *b;
    D3D12_CPU_DESCRIPTOR_HANDLE cpu, visible;
    D3D12_GPU_DESCRIPTOR_HANDLE gpu;
    ID3D12DescriptorHeap *heaps[2] = {shader_heap, sampler_heap};
    char buf[256], *items[4];
    int is_float, i;
    need_args(l, 3, "uint|float V0,V1,V2,V3 resource=R dim=D [view options]");
    if (!strcmp(l->argv[1], "uint"))
        is_float = 0;
    else if (!strcmp(l->argv[1], "float"))
        is_float = 1;
    else
        fail("`clear_unordered_access` clears with `uint` or `float` values, not `%s`", l->argv[1]);
    if (strlen(l->argv[2]) >= sizeof(buf))
        fail("the values are too long");
    strcpy(buf, l->argv[2]);
    if (split_list(buf, items, 4, "values") != 4)
        fail("`clear_unordered_access` takes four values V0,V1,V2,V3");
    if (!opt(l, "resource") || !strcmp(opt(l, "resource"), "null"))
        fail("`clear_unordered_access` needs `resource=` naming a resource");
    /* The view is parsed as a `uav` binding line is. */
    memset(&scratch, 0, sizeof(scratch));
    scratch.table_count = 1;
    open_bindings = &scratch;
    m.argc = 2;
    m.argv[0] = "uav";
    m.argv[1] = "u0";
    bind_line(&m);
    open_bindings = was;
    for (i = 0; i < l->optc; ++i)
        l->used[i] |= m.used[i];
    b = &scratch.tables[0].bindings[0];
    if (shader_heap_used + 1 > SHADER_HEAP_SIZE || clear_heap_used + 1 > VIEW_HEAP_SIZE)
        fail("descriptor heap full");
    visible = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(shader_heap);
    gpu = ID3D12DescriptorHeap_GetGPUDescriptorHandleForHeapStart(shader_heap);
    visible.ptr += (SIZE_T)shader_heap_used * shader_inc;
    gpu.ptr += (UINT64)shader_heap_used++ * shader_inc;
    cpu = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(clear_heap);
    cpu.ptr += (SIZE_T)clear_heap_used++ * clear_inc;
    ID3D12Device_CreateUnorderedAccessView(device, b->res->res, NULL, &b->uav, visible);
    ID3D12Device_CreateUnorderedAccessView(device, b->res->res, NULL, &b->uav, cpu);
    add_use(b->res, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, "cleared");
    uav_barrier();
    apply_uses();
    ID3D12GraphicsCommandList_SetDescriptorHeaps(list, 2, heaps);
    if (is_float)
    {
        float v[4];
        for (i = 0; i < 4; ++i)
            v[i] = parse_f32(items[i], "value");
        ID3D12GraphicsCommandList_ClearUnorderedAccessViewFloat(list, gpu, cpu, b->res->res, v, 0, NULL);
    }
    else
    {
        UINT v[4];
        for (i = 0; i < 4; ++i)
            v[i] = parse_u32(items[i], "value");
        ID3D12GraphicsCommandList_ClearUnorderedAccessViewUint(list, gpu, cpu, b->res->res, v, 0, NULL);
    }
    uav_written = 1;
    /* SetDescriptorHeaps may drop the bound tables: bind the pipeline's again. */
    if (current_pipeline)
        bind_tables(current_pipeline);
}

/* execute_indirect dispatch|draw|draw_indexed MAX_COMMAND_COUNT arguments=R [offset=O] [stride=S]
 *     [count=C] [count_offset=O] */
static void execute_indirect(struct line *l)
{
    D3D12_COMMAND_SIGNATURE_DESC d;
    D3D12_INDIRECT_ARGUMENT_DESC a;
    ID3D12CommandSignature *sig;
    struct resource *args, *count = NULL;
    const char *an = opt(l, "arguments"), *cn = opt(l, "count");
    unsigned int record, max;
    UINT64 off, coff;
    need_args(l, 3, "dispatch|draw|draw_indexed MAX_COMMAND_COUNT arguments=R [offset=O] [stride=S] "
            "[count=C] [count_offset=O]");
    memset(&a, 0, sizeof(a));
    if (!strcmp(l->argv[1], "dispatch"))
    {
        a.Type = D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH;
        record = sizeof(D3D12_DISPATCH_ARGUMENTS);
    }
    else if (!strcmp(l->argv[1], "draw"))
    {
        a.Type = D3D12_INDIRECT_ARGUMENT_TYPE_DRAW;
        record = sizeof(D3D12_DRAW_ARGUMENTS);
    }
    else if (!strcmp(l->argv[1], "draw_indexed"))
    {
        a.Type = D3D12_INDIRECT_ARGUMENT_TYPE_DRAW_INDEXED;
        record = sizeof(D3D12_DRAW_INDEXED_ARGUMENTS);
    }
    else
        fail("`execute_indirect` runs `dispatch`, `draw` or `draw_indexed` records, not `%s`", l->argv[1]);
    max = parse_u32(l->argv[2], "max command count");
    if (!an)
        fail("`execute_indirect` needs `arguments=`");
    args = find_resource(an);
    off = parse_u64(opt(l, "offset") ? opt(l, "offset") : "0", "offset");
    memset(&d, 0, sizeof(d));
    d.ByteStride = opt_u32(l, "stride", record);
    d.NumArgumentDescs = 1;
    d.pArgumentDescs = &a;
    if (args->desc.Dimension != D3D12_RESOURCE_DIMENSION_BUFFER
            || (max && (off > args->desc.Width
            || (UINT64)d.ByteStride * (max - 1) + record > args->desc.Width - off)))
        fail("`%s` is not a buffer holding %u records from byte %u", an, max, (unsigned int)off);
    coff = parse_u64(opt(l, "count_offset") ? opt(l, "count_offset") : "0", "count offset");
    if (cn)
    {
        count = find_resource(cn);
        if (count->desc.Dimension != D3D12_RESOURCE_DIMENSION_BUFFER || coff % 4 || coff + 4 > count->desc.Width)
            fail("`%s` has no aligned 4-byte count at %u", cn, (unsigned int)coff);
    }
    check_hr(ID3D12Device_CreateCommandSignature(device, &d, NULL, &IID_ID3D12CommandSignature, (void **)&sig),
            "CreateCommandSignature");
    add_use(args, D3D12_RESOURCE_STATE_INDIRECT_ARGUMENT, "an argument buffer");
    if (count && count != args)
        add_use(count, D3D12_RESOURCE_STATE_INDIRECT_ARGUMENT, "a count buffer");
    if (a.Type == D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH)
    {
        if (!current_pipeline || !current_pipeline->compute)
            fail("`execute_indirect dispatch` needs a compute pipeline (`set_pipeline`)");
        add_binding_uses(current_pipeline);
        uav_barrier();
        apply_uses();
        uav_written = pipeline_writes_uavs(current_pipeline);
    }
    else
    {
        if (a.Type == D3D12_INDIRECT_ARGUMENT_TYPE_DRAW_INDEXED)
        {
            if (!current_ib)
                fail("`execute_indirect draw_indexed` before `set_index_buffer`");
            add_use(current_ib, D3D12_RESOURCE_STATE_INDEX_BUFFER, "an index buffer");
        }
        before_draw();
    }
    ID3D12GraphicsCommandList_ExecuteIndirect(list, sig, max, args->res, off, count ? count->res : NULL, coff);
}

/* ---------------------------------------------------------------- queries */

static const struct named_value query_heap_types[] = {
    {"occlusion", D3D12_QUERY_HEAP_TYPE_OCCLUSION},
    {"pipeline_statistics", D3D12_QUERY_HEAP_TYPE_PIPELINE_STATISTICS},
    {"so_statistics", D3D12_QUERY_HEAP_TYPE_SO_STATISTICS},
    {"timestamp", D3D12_QUERY_HEAP_TYPE_TIMESTAMP},
    {NULL, 0},
};

static const struct named_value query_types[] = {
    {"occlusion", D3D12_QUERY_TYPE_OCCLUSION},
    {"binary_occlusion", D3D12_QUERY_TYPE_BINARY_OCCLUSION},
    {"pipeline_statistics", D3D12_QUERY_TYPE_PIPELINE_STATISTICS},
    {"so_statistics_stream0", D3D12_QUERY_TYPE_SO_STATISTICS_STREAM0},
    {"so_statistics_stream1", D3D12_QUERY_TYPE_SO_STATISTICS_STREAM1},
    {"so_statistics_stream2", D3D12_QUERY_TYPE_SO_STATISTICS_STREAM2},
    {"so_statistics_stream3", D3D12_QUERY_TYPE_SO_STATISTICS_STREAM3},
    {"timestamp", D3D12_QUERY_TYPE_TIMESTAMP},
    {NULL, 0},
};

#define MAX_QUERY_HEAPS 16

static struct
{
    char name[64];
    ID3D12QueryHeap *heap;
} query_heaps[MAX_QUERY_HEAPS];
static unsigned int query_heap_count;

static ID3D12QueryHeap *find_query_heap(const char *name)
{
    unsigned int i;
    for (i = 0; i < query_heap_count; ++i)
        if (!strcmp(query_heaps[i].name, name))
            return query_heaps[i].heap;
    fail("no query heap `%s` (declare it with `query_heap`)", name);
    return NULL;
}

/* query_heap NAME TYPE COUNT: made once; a later line of the same name is ignored, so a
 * plan may declare a heap before each command that uses it. */
static void declare_query_heap(struct line *l)
{
    D3D12_QUERY_HEAP_DESC d;
    unsigned int i;
    need_args(l, 4, "NAME TYPE COUNT");
    for (i = 0; i < query_heap_count; ++i)
        if (!strcmp(query_heaps[i].name, l->argv[1]))
            return;
    if (query_heap_count == MAX_QUERY_HEAPS)
        fail("more than %u query heaps", MAX_QUERY_HEAPS);
    if (strlen(l->argv[1]) >= sizeof(query_heaps[0].name))
        fail("query heap name `%s` is too long", l->argv[1]);
    memset(&d, 0, sizeof(d));
    d.Type = lookup(query_heap_types, l->argv[2], "query heap type");
    d.Count = parse_u32(l->argv[3], "query count");
    strcpy(query_heaps[query_heap_count].name, l->argv[1]);
    check_hr(ID3D12Device_CreateQueryHeap(device, &d, &IID_ID3D12QueryHeap,
            (void **)&query_heaps[query_heap_count].heap), "CreateQueryHeap");
    ++query_heap_count;
}

static void command(struct line *l)
{
    const char *k = l->argv[0];
    if (!strcmp(k, "set_pipeline"))
    {
        need_args(l, 2, "PIPELINE");
        current_pipeline = find_pipeline(l->argv[1]);
        ID3D12GraphicsCommandList_SetPipelineState(list, current_pipeline->pso);
        bind_tables(current_pipeline);
    }
    else if (!strcmp(k, "set_topology"))
    {
        const char *n;
        D3D12_PRIMITIVE_TOPOLOGY t;
        need_args(l, 2, "TOPOLOGY");
        n = l->argv[1];
        if (!strncmp(n, "patch_list_", 11))
        {
            /* patch_list_N: N control points per patch, 1 to 32. */
            unsigned int cp = parse_u32(n + 11, "control points");
            if (cp < 1 || cp > 32)
                fail("`%s`: a patch has 1 to 32 control points", n);
            t = D3D_PRIMITIVE_TOPOLOGY_1_CONTROL_POINT_PATCHLIST + cp - 1;
        }
        else
            t = lookup(topologies, n, "topology");
        ID3D12GraphicsCommandList_IASetPrimitiveTopology(list, t);
    }
    else if (!strcmp(k, "set_viewports"))
    {
        /* set_viewports X,Y,W,H,MIN,MAX ... */
        D3D12_VIEWPORT vp[16];
        int i, j;
        if (l->argc < 2 || l->argc > 17)
            fail("`set_viewports` takes 1 to 16 viewports X,Y,W,H,MIN_DEPTH,MAX_DEPTH");
        for (i = 1; i < l->argc; ++i)
        {
            char *items[6];
            float f[6];
            if (split_list(l->argv[i], items, 6, "viewport") != 6)
                fail("a viewport is X,Y,WIDTH,HEIGHT,MIN_DEPTH,MAX_DEPTH");
            for (j = 0; j < 6; ++j)
                f[j] = parse_f32(items[j], "viewport");
            vp[i - 1].TopLeftX = f[0];
            vp[i - 1].TopLeftY = f[1];
            vp[i - 1].Width = f[2];
            vp[i - 1].Height = f[3];
            vp[i - 1].MinDepth = f[4];
            vp[i - 1].MaxDepth = f[5];
        }
        ID3D12GraphicsCommandList_RSSetViewports(list, l->argc - 1, vp);
    }
    else if (!strcmp(k, "set_scissors"))
    {
        D3D12_RECT rc[16];
        int i;
        if (l->argc < 2 || l->argc > 17)
            fail("`set_scissors` takes 1 to 16 rectangles LEFT,TOP,RIGHT,BOTTOM");
        for (i = 1; i < l->argc; ++i)
        {
            char *items[4];
            if (split_list(l->argv[i], items, 4, "scissor") != 4)
                fail("a scissor rectangle is LEFT,TOP,RIGHT,BOTTOM");
            rc[i - 1].left = parse_i32(items[0], "scissor");
            rc[i - 1].top = parse_i32(items[1], "scissor");
            rc[i - 1].right = parse_i32(items[2], "scissor");
            rc[i - 1].bottom = parse_i32(items[3], "scissor");
        }
        ID3D12GraphicsCommandList_RSSetScissorRects(list, l->argc - 1, rc);
    }
    else if (!strcmp(k, "set_stencil_ref"))
    {
        need_args(l, 2, "VALUE");
        ID3D12GraphicsCommandList_OMSetStencilRef(list, parse_u32(l->argv[1], "stencil reference"));
    }
    else if (!strcmp(k, "set_blend_factor"))
    {
        float f[4];
        int i;
        need_args(l, 5, "R G B A");
        for (i = 0; i < 4; ++i)
            f[i] = parse_f32(l->argv[i + 1], "blend factor");
        ID3D12GraphicsCommandList_OMSetBlendFactor(list, f);
    }
    else if (!strcmp(k, "set_vertex_buffer"))
    {
        /* set_vertex_buffer SLOT resource=NAME stride=N [offset=O] [size=S] */
        D3D12_VERTEX_BUFFER_VIEW v;
        struct resource *r;
        const char *rn = opt(l, "resource");
        unsigned int slot, off = opt_u32(l, "offset", 0);
        need_args(l, 2, "SLOT resource=NAME stride=N");
        if ((slot = parse_u32(l->argv[1], "slot")) >= 32)
            fail("vertex buffer slots are 0 to 31");
        if (!rn)
            fail("`set_vertex_buffer` needs `resource=`");
        r = find_resource(rn);
        if (r->desc.Dimension != D3D12_RESOURCE_DIMENSION_BUFFER || off > r->desc.Width)
            fail("`%s` is not a buffer of at least %u bytes", rn, off);
        v.BufferLocation = ID3D12Resource_GetGPUVirtualAddress(r->res) + off;
        v.StrideInBytes = opt_u32(l, "stride", 0);
        v.SizeInBytes = opt_u32(l, "size", (unsigned int)(r->desc.Width - off));
        ID3D12GraphicsCommandList_IASetVertexBuffers(list, slot, 1, &v);
        current_vbs[slot] = r;
    }
    else if (!strcmp(k, "set_index_buffer"))
    {
        D3D12_INDEX_BUFFER_VIEW v;
        struct resource *r;
        const char *rn = opt(l, "resource"), *f = opt(l, "format");
        unsigned int off = opt_u32(l, "offset", 0);
        need_args(l, 1, "resource=NAME format=R16_UINT|R32_UINT");
        if (!rn || !f)
            fail("`set_index_buffer` needs `resource=` and `format=`");
        r = find_resource(rn);
        if (r->desc.Dimension != D3D12_RESOURCE_DIMENSION_BUFFER || off > r->desc.Width)
            fail("`%s` is not a buffer of at least %u bytes", rn, off);
        v.BufferLocation = ID3D12Resource_GetGPUVirtualAddress(r->res) + off;
        v.Format = lookup(formats, f, "format");
        v.SizeInBytes = opt_u32(l, "size", (unsigned int)(r->desc.Width - off));
        ID3D12GraphicsCommandList_IASetIndexBuffer(list, &v);
        current_ib = r;
    }
    else if (!strcmp(k, "set_so_target"))
    {
        /* set_so_target SLOT [resource=NAME [offset=O] [size=S] counter=NAME [counter_offset=O]] */
        D3D12_STREAM_OUTPUT_BUFFER_VIEW v;
        const char *rn = opt(l, "resource"), *cn = opt(l, "counter");
        unsigned int slot;
        need_args(l, 2, "SLOT [resource=NAME counter=NAME]");
        if ((slot = parse_u32(l->argv[1], "slot")) >= D3D12_SO_BUFFER_SLOT_COUNT)
            fail("stream-output slots are 0 to %d", D3D12_SO_BUFFER_SLOT_COUNT - 1);
        memset(&v, 0, sizeof(v));
        current_so[slot] = current_so_counters[slot] = NULL;
        if (rn || cn)
        {
            struct resource *r, *c;
            UINT64 off = opt_u32(l, "offset", 0), coff = opt_u32(l, "counter_offset", 0);
            if (!rn || !cn)
                fail("`set_so_target` needs both `resource=` and `counter=` (or neither, to unbind)");
            r = find_resource(rn);
            c = find_resource(cn);
            if (r->desc.Dimension != D3D12_RESOURCE_DIMENSION_BUFFER || off > r->desc.Width)
                fail("`%s` is not a buffer of at least %u bytes", rn, (unsigned int)off);
            if (c->desc.Dimension != D3D12_RESOURCE_DIMENSION_BUFFER || coff % 4 || coff + 4 > c->desc.Width)
                fail("`%s` has no aligned 4-byte counter at %u", cn, (unsigned int)coff);
            v.BufferLocation = ID3D12Resource_GetGPUVirtualAddress(r->res) + off;
            v.SizeInBytes = opt_u32(l, "size", (unsigned int)(r->desc.Width - off));
            v.BufferFilledSizeLocation = ID3D12Resource_GetGPUVirtualAddress(c->res) + coff;
            current_so[slot] = r;
            current_so_counters[slot] = c;
        }
        ID3D12GraphicsCommandList_SOSetTargets(list, slot, 1, &v);
    }
    else if (!strcmp(k, "set_render_targets"))
    {
        /* set_render_targets [RTV ...] [depth=DSV] */
        const char *d = opt(l, "depth");
        int i;
        if (l->argc > 9)
            fail("at most 8 render targets");
        current_rtv_count = l->argc - 1;
        for (i = 1; i < l->argc; ++i)
        {
            current_rtvs[i - 1] = find_view(l->argv[i]);
            if (current_rtvs[i - 1]->is_dsv)
                fail("`%s` is a depth-stencil view", l->argv[i]);
        }
        current_dsv = d ? find_view(d) : NULL;
        if (current_dsv && !current_dsv->is_dsv)
            fail("`%s` is a render-target view", d);
        set_render_targets();
    }
    else if (!strcmp(k, "clear_render_target"))
    {
        struct view *v;
        float c[4];
        int i;
        need_args(l, 6, "RTV R G B A");
        v = find_view(l->argv[1]);
        if (v->is_dsv)
            fail("`%s` is a depth-stencil view", l->argv[1]);
        for (i = 0; i < 4; ++i)
            c[i] = parse_f32(l->argv[i + 2], "colour");
        transition(list, v->res, D3D12_RESOURCE_STATE_RENDER_TARGET);
        ID3D12GraphicsCommandList_ClearRenderTargetView(list, v->handle, c, 0, NULL);
    }
    else if (!strcmp(k, "clear_depth_stencil"))
    {
        struct view *v;
        const char *d = opt(l, "depth"), *s = opt(l, "stencil");
        D3D12_CLEAR_FLAGS flags = 0;
        need_args(l, 2, "DSV [depth=D] [stencil=S]");
        v = find_view(l->argv[1]);
        if (!v->is_dsv)
            fail("`%s` is a render-target view", l->argv[1]);
        if (d)
            flags |= D3D12_CLEAR_FLAG_DEPTH;
        if (s)
            flags |= D3D12_CLEAR_FLAG_STENCIL;
        if (!flags)
            fail("`clear_depth_stencil` needs `depth=` or `stencil=` (or both)");
        transition(list, v->res, D3D12_RESOURCE_STATE_DEPTH_WRITE);
        ID3D12GraphicsCommandList_ClearDepthStencilView(list, v->handle, flags, d ? parse_f32(d, "depth") : 0.0f,
                s ? (UINT8)parse_u32(s, "stencil") : 0, 0, NULL);
    }
    else if (!strcmp(k, "draw"))
    {
        unsigned int n;
        need_args(l, 2, "VERTEX_COUNT [instances=N] [start_vertex=N] [start_instance=N]");
        n = parse_u32(l->argv[1], "vertex count");
        before_draw();
        ID3D12GraphicsCommandList_DrawInstanced(list, n, opt_u32(l, "instances", 1), opt_u32(l, "start_vertex", 0),
                opt_u32(l, "start_instance", 0));
    }
    else if (!strcmp(k, "draw_indexed"))
    {
        unsigned int n;
        const char *bv = opt(l, "base_vertex");
        need_args(l, 2, "INDEX_COUNT [instances=N] [start_index=N] [base_vertex=N] [start_instance=N]");
        n = parse_u32(l->argv[1], "index count");
        if (!current_ib)
            fail("`draw_indexed` before `set_index_buffer`");
        add_use(current_ib, D3D12_RESOURCE_STATE_INDEX_BUFFER, "an index buffer");
        before_draw();
        ID3D12GraphicsCommandList_DrawIndexedInstanced(list, n, opt_u32(l, "instances", 1),
                opt_u32(l, "start_index", 0), bv ? parse_i32(bv, "base_vertex") : 0, opt_u32(l, "start_instance", 0));
    }
    else if (!strcmp(k, "dispatch"))
    {
        need_args(l, 4, "X Y Z");
        if (!current_pipeline || !current_pipeline->compute)
            fail("`dispatch` needs a compute pipeline (`set_pipeline`)");
        add_binding_uses(current_pipeline);
        uav_barrier();
        apply_uses();
        ID3D12GraphicsCommandList_Dispatch(list, parse_u32(l->argv[1], "x"), parse_u32(l->argv[2], "y"),
                parse_u32(l->argv[3], "z"));
        uav_written = pipeline_writes_uavs(current_pipeline);
    }
    else if (!strcmp(k, "clear_unordered_access"))
        clear_unordered_access(l);
    else if (!strcmp(k, "execute_indirect"))
        execute_indirect(l);
    else if (!strcmp(k, "copy_resource"))
    {
        struct resource *d, *s;
        need_args(l, 3, "DST SRC");
        d = find_resource(l->argv[1]);
        s = find_resource(l->argv[2]);
        if (d == s)
            fail("`copy_resource` from `%s` to itself", d->name);
        transition(list, d, D3D12_RESOURCE_STATE_COPY_DEST);
        transition(list, s, D3D12_RESOURCE_STATE_COPY_SOURCE);
        ID3D12GraphicsCommandList_CopyResource(list, d->res, s->res);
    }
    else if (!strcmp(k, "copy_buffer_region"))
    {
        struct resource *d, *s;
        UINT64 doff, soff, size;
        need_args(l, 6, "DST DST_OFFSET SRC SRC_OFFSET SIZE");
        d = find_resource(l->argv[1]);
        s = find_resource(l->argv[3]);
        doff = parse_u64(l->argv[2], "destination offset");
        soff = parse_u64(l->argv[4], "source offset");
        size = parse_u64(l->argv[5], "size");
        if (d->desc.Dimension != D3D12_RESOURCE_DIMENSION_BUFFER || s->desc.Dimension != D3D12_RESOURCE_DIMENSION_BUFFER)
            fail("`copy_buffer_region` copies between buffers");
        if (doff > d->desc.Width || size > d->desc.Width - doff || soff > s->desc.Width || size > s->desc.Width - soff)
            fail("`copy_buffer_region`: the region lies outside a buffer");
        if (d == s)
            fail("`copy_buffer_region` within one buffer is not supported");
        transition(list, d, D3D12_RESOURCE_STATE_COPY_DEST);
        transition(list, s, D3D12_RESOURCE_STATE_COPY_SOURCE);
        ID3D12GraphicsCommandList_CopyBufferRegion(list, d->res, doff, s->res, soff, size);
    }
    else if (!strcmp(k, "copy_texture_region"))
    {
        /* copy_texture_region DST DST_SUB X Y Z SRC SRC_SUB [box=L,T,F,R,B,K] */
        D3D12_TEXTURE_COPY_LOCATION dl, sl;
        struct resource *d, *s;
        const char *bx = opt(l, "box");
        D3D12_BOX box;
        need_args(l, 8, "DST DST_SUBRESOURCE X Y Z SRC SRC_SUBRESOURCE [box=LEFT,TOP,FRONT,RIGHT,BOTTOM,BACK]");
        copy_location(l, l->argv[1], l->argv[2], &dl, &d);
        copy_location(l, l->argv[6], l->argv[7], &sl, &s);
        if (d == s)
            fail("`copy_texture_region` within one resource is not supported");
        if (bx)
        {
            char buf[128], *items[6];
            if (strlen(bx) >= sizeof(buf))
                fail("`box` is too long");
            strcpy(buf, bx);
            if (split_list(buf, items, 6, "box") != 6)
                fail("`box` is LEFT,TOP,FRONT,RIGHT,BOTTOM,BACK");
            box.left = parse_u32(items[0], "box");
            box.top = parse_u32(items[1], "box");
            box.front = parse_u32(items[2], "box");
            box.right = parse_u32(items[3], "box");
            box.bottom = parse_u32(items[4], "box");
            box.back = parse_u32(items[5], "box");
        }
        transition(list, d, D3D12_RESOURCE_STATE_COPY_DEST);
        transition(list, s, D3D12_RESOURCE_STATE_COPY_SOURCE);
        ID3D12GraphicsCommandList_CopyTextureRegion(list, &dl, parse_u32(l->argv[3], "x"), parse_u32(l->argv[4], "y"),
                parse_u32(l->argv[5], "z"), &sl, bx ? &box : NULL);
    }
    else if (!strcmp(k, "query_heap"))
        declare_query_heap(l);
    else if (!strcmp(k, "begin_query") || !strcmp(k, "end_query"))
    {
        /* begin_query HEAP TYPE INDEX, end_query HEAP TYPE INDEX */
        ID3D12QueryHeap *h;
        D3D12_QUERY_TYPE t;
        UINT i;
        need_args(l, 4, "HEAP TYPE INDEX");
        h = find_query_heap(l->argv[1]);
        t = lookup(query_types, l->argv[2], "query type");
        i = parse_u32(l->argv[3], "query index");
        if (!strcmp(k, "begin_query"))
            ID3D12GraphicsCommandList_BeginQuery(list, h, t, i);
        else
            ID3D12GraphicsCommandList_EndQuery(list, h, t, i);
    }
    else if (!strcmp(k, "resolve_query_data"))
    {
        /* resolve_query_data HEAP TYPE FIRST COUNT BUFFER OFFSET */
        struct resource *d;
        need_args(l, 7, "HEAP TYPE FIRST COUNT BUFFER OFFSET");
        d = find_resource(l->argv[5]);
        transition(list, d, D3D12_RESOURCE_STATE_COPY_DEST);
        ID3D12GraphicsCommandList_ResolveQueryData(list, find_query_heap(l->argv[1]),
                lookup(query_types, l->argv[2], "query type"), parse_u32(l->argv[3], "first query"),
                parse_u32(l->argv[4], "query count"), d->res, parse_u64(l->argv[6], "offset"));
    }
    else if (!strcmp(k, "set_predication"))
    {
        /* set_predication BUFFER OFFSET equal_zero|not_equal_zero, or set_predication none */
        if (l->argc == 2 && !strcmp(l->argv[1], "none"))
            ID3D12GraphicsCommandList_SetPredication(list, NULL, 0, D3D12_PREDICATION_OP_EQUAL_ZERO);
        else
        {
            struct resource *b;
            need_args(l, 4, "BUFFER OFFSET OPERATION");
            b = find_resource(l->argv[1]);
            transition(list, b, D3D12_RESOURCE_STATE_PREDICATION);
            ID3D12GraphicsCommandList_SetPredication(list, b->res, parse_u64(l->argv[2], "offset"),
                    !strcmp(l->argv[3], "not_equal_zero") ? D3D12_PREDICATION_OP_NOT_EQUAL_ZERO
                                                          : D3D12_PREDICATION_OP_EQUAL_ZERO);
        }
    }
    else if (!strcmp(k, "resolve_subresource"))
    {
        struct resource *d, *s;
        unsigned int ds, ss;
        need_args(l, 6, "DST DST_SUBRESOURCE SRC SRC_SUBRESOURCE FORMAT");
        d = find_resource(l->argv[1]);
        s = find_resource(l->argv[3]);
        ds = parse_u32(l->argv[2], "subresource");
        ss = parse_u32(l->argv[4], "subresource");
        if (s->desc.SampleDesc.Count < 2 || d->desc.SampleDesc.Count != 1)
            fail("`resolve_subresource` resolves a multisampled texture into a single-sampled one");
        if (ds >= subresource_count(d) || ss >= subresource_count(s))
            fail("`resolve_subresource`: a subresource index is out of range");
        transition(list, d, D3D12_RESOURCE_STATE_RESOLVE_DEST);
        transition(list, s, D3D12_RESOURCE_STATE_RESOLVE_SOURCE);
        ID3D12GraphicsCommandList_ResolveSubresource(list, d->res, ds, s->res, ss,
                lookup(formats, l->argv[5], "format"));
    }
    else
        fail("unknown statement `%s`", k);
    done(l);
}

/* ---------------------------------------------------------------- readback */

struct readback
{
    struct resource *res;
    char file[4096];
    unsigned int first, count; /* subresources */
    int line;
    ID3D12Resource *buffer;
};

static struct readback readbacks[MAX_READBACKS];
static unsigned int readback_count;

/* readback RESOURCE FILE [subresources=FIRST+COUNT|all] [plane=P] */
static void stmt_readback(struct line *l)
{
    struct readback *rb;
    const char *s, *pl;
    unsigned int n, plane;
    need_args(l, 3, "RESOURCE FILE [subresources=FIRST+COUNT] [plane=P]");
    if (readback_count == MAX_READBACKS)
        fail("more than %d readbacks", MAX_READBACKS);
    rb = &readbacks[readback_count++];
    rb->res = find_resource(l->argv[1]);
    rb->line = cur_line;
    path_of(l->argv[2], rb->file, sizeof(rb->file));
    n = subresource_count(rb->res);
    s = opt(l, "subresources");
    pl = opt(l, "plane");
    done(l);
    plane = pl ? parse_u32(pl, "plane") : 0;
    if (plane >= rb->res->planes)
        fail("`plane=%u`: `%s` has %u plane%s", plane, rb->res->name, rb->res->planes, rb->res->planes > 1 ? "s" : "");
    rb->first = 0;
    rb->count = n;
    if (s)
        parse_range(s, n, &rb->first, &rb->count, "subresources");
    if (rb->first >= n || rb->count > n - rb->first || !rb->count || rb->count > MAX_SUBRESOURCES)
        fail("`subresources=%s` is outside `%s`'s %u", s, rb->res->name, n);
    rb->first += plane * n;
    if (rb->res->desc.SampleDesc.Count > 1)
        fail("`%s` is multisampled: copies cannot read it (resolve it, or load its samples with a compute "
                "program into a buffer)", rb->res->name);
}

static void record_readbacks(void)
{
    unsigned int i, k;
    for (i = 0; i < readback_count; ++i)
    {
        struct readback *rb = &readbacks[i];
        struct resource *r = rb->res;
        cur_line = rb->line;
        transition(list, r, D3D12_RESOURCE_STATE_COPY_SOURCE);
        if (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_BUFFER)
        {
            rb->buffer = create_buffer(D3D12_HEAP_TYPE_READBACK, r->desc.Width, D3D12_RESOURCE_FLAG_NONE,
                    D3D12_RESOURCE_STATE_COPY_DEST);
            ID3D12GraphicsCommandList_CopyBufferRegion(list, rb->buffer, 0, r->res, 0, r->desc.Width);
            continue;
        }
        {
            static D3D12_PLACED_SUBRESOURCE_FOOTPRINT fp[MAX_SUBRESOURCES];
            UINT64 total;
            ID3D12Device_GetCopyableFootprints(device, &r->desc, rb->first, rb->count, 0, fp, NULL, NULL, &total);
            if (total == ~(UINT64)0)
                fail("GetCopyableFootprints refused `%s`'s subresources", r->name);
            rb->buffer = create_buffer(D3D12_HEAP_TYPE_READBACK, total, D3D12_RESOURCE_FLAG_NONE,
                    D3D12_RESOURCE_STATE_COPY_DEST);
            for (k = 0; k < rb->count; ++k)
            {
                D3D12_TEXTURE_COPY_LOCATION d, s;
                d.pResource = rb->buffer;
                d.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
                d.PlacedFootprint = fp[k];
                s.pResource = r->res;
                s.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
                s.SubresourceIndex = rb->first + k;
                ID3D12GraphicsCommandList_CopyTextureRegion(list, &d, 0, 0, 0, &s, NULL);
            }
        }
    }
}

/* Writes each read-back resource with the footprints' row padding removed: rows of
 * RowSizeInBytes, subresources one after another. */
static void write_readbacks(void)
{
    unsigned int i, k, y, z;
    for (i = 0; i < readback_count; ++i)
    {
        struct readback *rb = &readbacks[i];
        struct resource *r = rb->res;
        const unsigned char *p;
        FILE *f;
        cur_line = rb->line;
        if (!(f = fopen(rb->file, "wb")))
            fail("cannot write `%s`: %s", rb->file, strerror(errno));
        p = map(rb->buffer);
        if (r->desc.Dimension == D3D12_RESOURCE_DIMENSION_BUFFER)
        {
            if (fwrite(p, 1, r->desc.Width, f) != r->desc.Width)
                fail("cannot write `%s`", rb->file);
        }
        else
        {
            static D3D12_PLACED_SUBRESOURCE_FOOTPRINT fp[MAX_SUBRESOURCES];
            static UINT rows[MAX_SUBRESOURCES];
            static UINT64 row_size[MAX_SUBRESOURCES];
            ID3D12Device_GetCopyableFootprints(device, &r->desc, rb->first, rb->count, 0, fp, rows, row_size, NULL);
            for (k = 0; k < rb->count; ++k)
                for (z = 0; z < fp[k].Footprint.Depth; ++z)
                    for (y = 0; y < rows[k]; ++y)
                        if (fwrite(p + fp[k].Offset + (UINT64)fp[k].Footprint.RowPitch * (y + (UINT64)z * rows[k]), 1,
                                row_size[k], f) != row_size[k])
                            fail("cannot write `%s`", rb->file);
        }
        ID3D12Resource_Unmap(rb->buffer, 0, NULL);
        if (fclose(f))
            fail("cannot write `%s`", rb->file);
    }
}

/* ---------------------------------------------------------------- main */

static void create_heap(D3D12_DESCRIPTOR_HEAP_TYPE type, unsigned int n, int visible, ID3D12DescriptorHeap **heap,
        unsigned int *inc)
{
    D3D12_DESCRIPTOR_HEAP_DESC d;
    d.Type = type;
    d.NumDescriptors = n;
    d.Flags = visible ? D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE : D3D12_DESCRIPTOR_HEAP_FLAG_NONE;
    d.NodeMask = 0;
    check_hr(ID3D12Device_CreateDescriptorHeap(device, &d, &IID_ID3D12DescriptorHeap, (void **)heap),
            "CreateDescriptorHeap");
    *inc = ID3D12Device_GetDescriptorHandleIncrementSize(device, type);
}

static void setup_device(void)
{
    D3D12_COMMAND_QUEUE_DESC qd;
    int i;
    if (FAILED(D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device)))
    {
        fprintf(stderr, "%s: no D3D12 device (vkd3d found no Vulkan driver it can use)\n", plan_path);
        exit(77);
    }
    memset(&qd, 0, sizeof(qd));
    qd.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
    check_hr(ID3D12Device_CreateCommandQueue(device, &qd, &IID_ID3D12CommandQueue, (void **)&queue),
            "CreateCommandQueue");
    for (i = 0; i < 2; ++i)
        check_hr(ID3D12Device_CreateCommandAllocator(device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                &IID_ID3D12CommandAllocator, (void **)&allocators[i]), "CreateCommandAllocator");
    check_hr(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocators[0], NULL,
            &IID_ID3D12GraphicsCommandList, (void **)&init_list), "CreateCommandList");
    check_hr(ID3D12Device_CreateCommandList(device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocators[1], NULL,
            &IID_ID3D12GraphicsCommandList, (void **)&list), "CreateCommandList");
    create_heap(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, SHADER_HEAP_SIZE, 1, &shader_heap, &shader_inc);
    create_heap(D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER, SAMPLER_HEAP_SIZE, 1, &sampler_heap, &sampler_inc);
    create_heap(D3D12_DESCRIPTOR_HEAP_TYPE_RTV, VIEW_HEAP_SIZE, 0, &rtv_heap, &rtv_inc);
    create_heap(D3D12_DESCRIPTOR_HEAP_TYPE_DSV, VIEW_HEAP_SIZE, 0, &dsv_heap, &dsv_inc);
    /* ClearUnorderedAccessView* takes the view twice: in a shader-visible heap and in
     * one the CPU reads. */
    create_heap(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, VIEW_HEAP_SIZE, 0, &clear_heap, &clear_inc);
}

/* `repeat N`: executions of the main list after the first, each timed. */
static unsigned int repeat_count;
static int repeat_line;

/* Waits until the queue has run everything submitted so far. */
static void wait_idle(void)
{
    ID3D12Fence *fence;
    HANDLE event;
    check_hr(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence),
            "CreateFence");
    check_hr(ID3D12CommandQueue_Signal(queue, fence, 1), "Signal");
    if (!(event = vkd3d_create_event()))
        fail("cannot create an event");
    check_hr(ID3D12Fence_SetEventOnCompletion(fence, 1, event), "SetEventOnCompletion");
    if (vkd3d_wait_event(event, VKD3D_INFINITE) != VKD3D_WAIT_OBJECT_0)
        fail("waiting for the command list failed");
    vkd3d_destroy_event(event);
    ID3D12Fence_Release(fence);
}

/* Runs the closed main list `repeat_count` times, one at a time, and prints each
 * execution's wall time from submission to the fence (`execution K: T ms`). */
static void execute_repeats(void)
{
    unsigned int k;
    for (k = 1; k <= repeat_count; ++k)
    {
        ID3D12CommandList *lists[1] = {(ID3D12CommandList *)list};
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        ID3D12CommandQueue_ExecuteCommandLists(queue, 1, lists);
        wait_idle();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("execution %u: %.3f ms\n", k,
                (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
        fflush(stdout);
    }
    if (FAILED(ID3D12Device_GetDeviceRemovedReason(device)))
        fail("the device was removed while running the command list again");
}

static void execute_and_wait(void)
{
    ID3D12CommandList *lists[2] = {(ID3D12CommandList *)init_list, (ID3D12CommandList *)list};
    ID3D12Fence *fence;
    HANDLE event;
    HRESULT hr;
    check_hr(ID3D12GraphicsCommandList_Close(init_list), "closing the upload command list");
    hr = ID3D12GraphicsCommandList_Close(list);
    if (FAILED(hr))
        fail("closing the command list failed (HRESULT %#x): a command was invalid", (unsigned int)hr);
    ID3D12CommandQueue_ExecuteCommandLists(queue, 2, lists);
    check_hr(ID3D12Device_CreateFence(device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence, (void **)&fence),
            "CreateFence");
    check_hr(ID3D12CommandQueue_Signal(queue, fence, 1), "Signal");
    if (!(event = vkd3d_create_event()))
        fail("cannot create an event");
    check_hr(ID3D12Fence_SetEventOnCompletion(fence, 1, event), "SetEventOnCompletion");
    if (vkd3d_wait_event(event, VKD3D_INFINITE) != VKD3D_WAIT_OBJECT_0)
        fail("waiting for the command list failed");
    vkd3d_destroy_event(event);
    hr = ID3D12Device_GetDeviceRemovedReason(device);
    if (FAILED(hr))
        fail("the device was removed while running the command list (HRESULT %#x)", (unsigned int)hr);
    ID3D12Fence_Release(fence);
}

int main(int argc, char **argv)
{
    FILE *f;
    char text[16384], *slash;
    struct line l;
    int have_header = 0;
    if (argc != 2)
    {
        fprintf(stderr, "usage: %s PLAN\n", argv[0]);
        return 1;
    }
    plan_path = argv[1];
    if (strlen(plan_path) >= sizeof(plan_dir))
        fail("the plan's path is too long");
    strcpy(plan_dir, plan_path);
    if ((slash = strrchr(plan_dir, '/')))
        *slash = 0;
    else
        strcpy(plan_dir, ".");
    if (!(f = fopen(plan_path, "r")))
        fail("cannot open the plan: %s", strerror(errno));
    setup_device();
    while (fgets(text, sizeof(text), f))
    {
        ++cur_line;
        if (!strchr(text, '\n') && !feof(f))
            fail("line longer than %zu bytes", sizeof(text) - 2);
        split(text, &l);
        if (!l.argc)
        {
            if (l.optc)
                fail("a line starts with `%s=`", l.key[0]);
            continue;
        }
        if (!have_header)
        {
            if (strcmp(l.argv[0], "d3d12-plan") || l.argc != 2)
                fail("the first line must be `d3d12-plan %d`", PLAN_VERSION);
            if (parse_u32(l.argv[1], "version") != PLAN_VERSION)
                fail("plan version %s; this peer reads version %d", l.argv[1], PLAN_VERSION);
            have_header = 1;
            continue;
        }
        if (!strcmp(l.argv[0], "end"))
        {
            need_args(&l, 1, "");
            if (open_pipeline)
                close_pipeline();
            else if (open_bindings)
            {
                finish_bindings(open_bindings);
                open_bindings = NULL;
            }
            else
                fail("`end` without an open `pipeline` or `root_signature`");
            continue;
        }
        if (open_pipeline)
        {
            pipeline_line(&l);
            continue;
        }
        if (open_bindings)
        {
            if (!strcmp(l.argv[0], "table"))
            {
                struct table *t;
                need_args(&l, 2, "VISIBILITY");
                done(&l);
                if (open_bindings->table_count == MAX_TABLES)
                    fail("more than %d tables", MAX_TABLES);
                t = &open_bindings->tables[open_bindings->table_count++];
                t->visibility = lookup(visibilities, l.argv[1], "shader visibility");
                t->count = 0;
            }
            else
                bind_line(&l);
            continue;
        }
        if (!strcmp(l.argv[0], "buffer"))
            stmt_buffer(&l);
        else if (!strcmp(l.argv[0], "texture"))
            stmt_texture(&l);
        else if (!strcmp(l.argv[0], "shader"))
            stmt_shader(&l);
        else if (!strcmp(l.argv[0], "rtv"))
            stmt_view(&l, 0);
        else if (!strcmp(l.argv[0], "dsv"))
            stmt_view(&l, 1);
        else if (!strcmp(l.argv[0], "root_signature"))
        {
            /* root_signature NAME graphics|compute [stream_output=1] ... end */
            unsigned int i;
            int so;
            need_args(&l, 3, "NAME graphics|compute [stream_output=1]");
            so = opt_bool(&l, "stream_output", 0);
            done(&l);
            check_name(l.argv[1], "root signature");
            for (i = 0; i < binding_set_count; ++i)
                if (!strcmp(binding_sets[i]->name, l.argv[1]))
                    fail("root signature `%s` is declared twice", l.argv[1]);
            if (binding_set_count == MAX_OBJECTS)
                fail("more than %d root signatures", MAX_OBJECTS);
            if (!(open_bindings = calloc(1, sizeof(*open_bindings))))
                fail("out of memory");
            strcpy(open_bindings->name, l.argv[1]);
            open_bindings->line = cur_line;
            if (!strcmp(l.argv[2], "compute"))
                open_bindings->compute = 1;
            else if (strcmp(l.argv[2], "graphics"))
                fail("a root signature is for `graphics` or `compute`, not `%s`", l.argv[2]);
            if (so && open_bindings->compute)
                fail("`stream_output=1` is for graphics root signatures");
            open_bindings->stream_output = so;
            binding_sets[binding_set_count++] = open_bindings;
        }
        else if (!strcmp(l.argv[0], "pipeline"))
            open_pipeline_block(&l);
        else if (!strcmp(l.argv[0], "readback"))
            stmt_readback(&l);
        else if (!strcmp(l.argv[0], "repeat"))
        {
            /* repeat N: execute the list N more times after the first, timing each. */
            need_args(&l, 2, "N");
            done(&l);
            if (repeat_line)
                fail("a second `repeat` line (the first is line %d)", repeat_line);
            repeat_count = parse_u32(l.argv[1], "repeat count");
            if (!repeat_count || repeat_count > 1000)
                fail("`repeat %s`: give 1 to 1000 executions", l.argv[1]);
            repeat_line = cur_line;
        }
        else
            command(&l);
    }
    if (ferror(f))
        fail("cannot read the plan");
    fclose(f);
    if (!have_header)
        fail("empty plan: the first line must be `d3d12-plan %d`", PLAN_VERSION);
    if (open_pipeline || open_bindings)
    {
        cur_line = open_pipeline ? open_line : open_bindings->line;
        fail("this block has no `end`");
    }
    cur_line = 0;
    record_readbacks();
    cur_line = 0;
    if (repeat_count)
    {
        /* Back to where the list started, so that the next execution's barriers hold. */
        unsigned int i;
        for (i = 0; i < resource_count; ++i)
            if (resources[i].in_list)
                transition(list, &resources[i], resources[i].list_start_state);
    }
    execute_and_wait();
    write_readbacks();
    execute_repeats();
    return 0;
}
