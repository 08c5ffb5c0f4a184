#!/usr/bin/env python3
"""Generates src/dxil/dxop_table.rs: the dx.op operations as a named enum (`DxOp`, the
discriminant being the opcode, with the name listings print) and their property table.

    tools/gen-dxop-table.py path/to/DXIL.rst > src/dxil/dxop_table.rs

`tools/gen-dxop-table.py --rows-from src/dxil/dxop_table.rs` gives the same output with
DXIL.rst's rows (opcode, name, description) read back from the committed table, for
checking that the table is this script's output where DXIL.rst is not at hand (the test
`dxop_table_is_the_generator_output` in tests/all/dxil.rs).

Where each fact comes from:

* opcode, name and description: the "Opcode Table CoreOps" and "Opcode Table
  ExperimentalOps" tables of DXIL.rst (the .rst given on the command line). DXIL.rst is
  the authority on which opcodes exist and what they are called.
* operation class (the `dx.op.<class>` function name), overloads and function attribute
  (readnone / readonly / none, plus noduplicate, noreturn, argmemonly): DXIL.rst does not
  state them. They are transcribed below (HCT) from DirectXShaderCompiler's
  utils/hct/hctdb.py, as its generated operation-property table
  (lib/DXIL/DxilOperations.cpp, OPCODE-OLOADS) restates them.
* parameter types: transcribed below (HCT, after the second colon) from the generated
  function-type switch of the same file (OPCODE-OLOAD-FUNCS), which hctdb.py generates
  from each operation's parameter list. That switch covers opcodes 0-225; operations
  after it have no signature here (the decoder then checks opcode and class only).
* The SM 6.9 vector reductions and FDot (309-311), which hctdb.py's generated table
  did not hold when it was transcribed: class, overloads and attribute from
  DirectX-Specs proposal 0030 "DXIL Vectors" (`dx.op.vectorReduce.v<N><T>` over
  i1/i8/i16/i32/i64, `dx.op.dot.v<N><T>` over half/float).
* The vector overloads (`<`) of the wave and quad operations 115, 117-123, 165 and 166,
  which the transcription predates: DirectX-Specs proposal 0030 "DXIL Vectors", Appendix
  1 (WaveMatch, 165, takes a whole vector and still returns one mask).
* Opcodes DXIL.rst lists that the transcription lacks (experimental operations) get no
  class: a call to them is recognised by opcode and name only.

Overload letters (hctdb.py): h half, f float, d double, 1 i1, 8 i8, w i16, i i32,
l i64, u user-defined type, o object, v none; a trailing '<' means vector overloads.
Type codes of signatures: o the overload type, v void, i1 i8 i16 i32 i64 f16 f32 f64,
res %dx.types.Handle, rrt %dx.types.ResRet.<o>, cbrt %dx.types.CBufRet.<o>,
dim %dx.types.Dimensions, pos %dx.types.SamplePos, 2i32 %dx.types.twoi32,
i32c %dx.types.i32c, sdt %dx.types.splitdouble, 4i32 %dx.types.fouri32,
prop %dx.types.ResourceProperties, bind %dx.types.ResBind, v4o <4 x o>,
pf32 float*, udt / obj pointer or struct of a user type. "T*n" repeats T n times.
The opcode argument (i32) is implied and not listed.
"""

import re
import sys

# id  class  overloads  attribute  : return : parameters after the opcode
# attribute: rn readnone, ro readonly, - none, nd noduplicate, nr noreturn, amo argmemonly
HCT = """
0 tempRegLoad hfwi ro : o : i32
1 tempRegStore hfwi - : v : i32 o
2 minPrecXRegLoad hw ro : o : pf32 i32 i8
3 minPrecXRegStore hw - : v : pf32 i32 i8 o
4 loadInput hfwi rn : o : i32 i32 i8 i32
5 storeOutput hfwi - : v : i32 i32 i8 o
6 unary hfd< rn : o : o
7 unary hfd< rn : o : o
8 isSpecialFloat hf< rn : i1 : o
9 isSpecialFloat hf< rn : i1 : o
10 isSpecialFloat hf< rn : i1 : o
11 isSpecialFloat hf< rn : i1 : o
12 unary hf< rn : o : o
13 unary hf< rn : o : o
14 unary hf< rn : o : o
15 unary hf< rn : o : o
16 unary hf< rn : o : o
17 unary hf< rn : o : o
18 unary hf< rn : o : o
19 unary hf< rn : o : o
20 unary hf< rn : o : o
21 unary hf< rn : o : o
22 unary hf< rn : o : o
23 unary hf< rn : o : o
24 unary hf< rn : o : o
25 unary hf< rn : o : o
26 unary hf< rn : o : o
27 unary hf< rn : o : o
28 unary hf< rn : o : o
29 unary hf< rn : o : o
30 unary wil< rn : o : o
31 unaryBits wil< rn : i32 : o
32 unaryBits wil< rn : i32 : o
33 unaryBits wil< rn : i32 : o
34 unaryBits wil< rn : i32 : o
35 binary hfd< rn : o : o o
36 binary hfd< rn : o : o o
37 binary wil< rn : o : o o
38 binary wil< rn : o : o o
39 binary wil< rn : o : o o
40 binary wil< rn : o : o o
41 binaryWithTwoOuts i rn : 2i32 : o o
42 binaryWithTwoOuts i rn : 2i32 : o o
43 binaryWithTwoOuts i rn : 2i32 : o o
44 binaryWithCarryOrBorrow i rn : i32c : o o
45 binaryWithCarryOrBorrow i rn : i32c : o o
46 tertiary hfd< rn : o : o o o
47 tertiary d< rn : o : o o o
48 tertiary wil< rn : o : o o o
49 tertiary wil< rn : o : o o o
50 tertiary il rn : o : o o o
51 tertiary il rn : o : o o o
52 tertiary il rn : o : o o o
53 quaternary i rn : o : o o o o
54 dot2 hf rn : o : o*4
55 dot3 hf rn : o : o*6
56 dot4 hf rn : o : o*8
57 createHandle v ro : res : i8 i32 i32 i1
58 cbufferLoad hfd8wil ro : o : res i32 i32
59 cbufferLoadLegacy hfdwil ro : cbrt : res i32
60 sample hfwi ro : rrt : res res f32*4 i32*3 f32
61 sampleBias hfwi ro : rrt : res res f32*4 i32*3 f32 f32
62 sampleLevel hfwi ro : rrt : res res f32*4 i32*3 f32
63 sampleGrad hfwi ro : rrt : res res f32*4 i32*3 f32*7
64 sampleCmp hf ro : rrt : res res f32*4 i32*3 f32 f32
65 sampleCmpLevelZero hf ro : rrt : res res f32*4 i32*3 f32
66 textureLoad hfwi ro : rrt : res i32*7
67 textureStore hfwi - : v : res i32 i32 i32 o o o o i8
68 bufferLoad hfwi ro : rrt : res i32 i32
69 bufferStore hfwi - : v : res i32 i32 o o o o i8
70 bufferUpdateCounter v - : i32 : res i8
71 checkAccessFullyMapped i ro : i1 : i32
72 getDimensions v ro : dim : res i32
73 textureGather hfwi ro : rrt : res res f32*4 i32*3
74 textureGatherCmp hfwi ro : rrt : res res f32*4 i32*3 f32
75 texture2DMSGetSamplePosition v ro : pos : res i32
76 renderTargetGetSamplePosition v ro : pos : i32
77 renderTargetGetSampleCount v ro : i32 :
78 atomicBinOp li - : o : res i32 i32 i32 i32 o
79 atomicCompareExchange li - : o : res i32 i32 i32 o o
80 barrier v nd : v : i32
81 calculateLOD f ro : f32 : res res f32 f32 f32 i1
82 discard v - : v : i1
83 unary hf< rn : o : o
84 unary hf< rn : o : o
85 unary hf< rn : o : o
86 unary hf< rn : o : o
87 evalSnapped hf rn : o : i32 i32 i8 i32 i32
88 evalSampleIndex hf rn : o : i32 i32 i8 i32
89 evalCentroid hf rn : o : i32 i32 i8
90 sampleIndex i rn : i32 :
91 coverage i rn : i32 :
92 innerCoverage i rn : i32 :
93 threadId i rn : i32 : i32
94 groupId i rn : i32 : i32
95 threadIdInGroup i rn : i32 : i32
96 flattenedThreadIdInGroup i rn : i32 :
97 emitStream v - : v : i8
98 cutStream v - : v : i8
99 emitThenCutStream v - : v : i8
100 gsInstanceID i rn : i32 :
101 makeDouble d rn : f64 : i32 i32
102 splitDouble d rn : sdt : f64
103 loadOutputControlPoint hfwi rn : o : i32 i32 i8 i32
104 loadPatchConstant hfwi rn : o : i32 i32 i8
105 domainLocation f rn : f32 : i8
106 storePatchConstant hfwi - : v : i32 i32 i8 o
107 outputControlPointID i rn : i32 :
108 primitiveID i rn : i32 :
109 cycleCounterLegacy v - : 2i32 :
110 waveIsFirstLane v - : i1 :
111 waveGetLaneIndex v ro : i32 :
112 waveGetLaneCount v rn : i32 :
113 waveAnyTrue v - : i1 : i1
114 waveAllTrue v - : i1 : i1
115 waveActiveAllEqual hfd18wil< - : i1 : o
116 waveActiveBallot v - : 4i32 : i1
117 waveReadLaneAt hfd18wil< - : o : o i32
118 waveReadLaneFirst hfd18wil< - : o : o
119 waveActiveOp hfd18wil< - : o : o i8 i8
120 waveActiveBit 8wil< - : o : o i8
121 wavePrefixOp hfd8wil< - : o : o i8 i8
122 quadReadLaneAt hfd18wil< - : o : o i32
123 quadOp hfd8wil< - : o : o i8
124 bitcastI16toF16 v rn : f16 : i16
125 bitcastF16toI16 v rn : i16 : f16
126 bitcastI32toF32 v rn : f32 : i32
127 bitcastF32toI32 v rn : i32 : f32
128 bitcastI64toF64 v rn : f64 : i64
129 bitcastF64toI64 v rn : i64 : f64
130 legacyF32ToF16 v rn : i32 : f32
131 legacyF16ToF32 v rn : f32 : i32
132 legacyDoubleToFloat v rn : f32 : f64
133 legacyDoubleToSInt32 v rn : i32 : f64
134 legacyDoubleToUInt32 v rn : i32 : f64
135 waveAllOp v - : i32 : i1
136 wavePrefixOp v - : i32 : i1
137 attributeAtVertex hfiw rn : o : i32 i32 i8 i8
138 viewID i rn : i32 :
139 rawBufferLoad hfwidl ro : rrt : res i32 i32 i8 i32
140 rawBufferStore hfwidl - : v : res i32 i32 o o o o i8 i32
141 instanceID i rn : i32 :
142 instanceIndex i rn : i32 :
143 hitKind i rn : i32 :
144 rayFlags i rn : i32 :
145 dispatchRaysIndex i rn : i32 : i8
146 dispatchRaysDimensions i rn : i32 : i8
147 worldRayOrigin f rn : f32 : i8
148 worldRayDirection f rn : f32 : i8
149 objectRayOrigin f rn : f32 : i8
150 objectRayDirection f rn : f32 : i8
151 objectToWorld f rn : f32 : i32 i8
152 worldToObject f rn : f32 : i32 i8
153 rayTMin f rn : f32 :
154 rayTCurrent f ro : f32 :
155 ignoreHit v nr : v :
156 acceptHitAndEndSearch v nr : v :
157 traceRay u - : v : res i32 i32 i32 i32 i32 f32*8 udt
158 reportHit u - : i1 : f32 i32 udt
159 callShader u - : v : i32 udt
160 createHandleForLib o ro : res : obj
161 primitiveIndex i rn : i32 :
162 dot2AddHalf f rn : o : o f16 f16 f16 f16
163 dot4AddPacked i rn : i32 : i32 i32 i32
164 dot4AddPacked i rn : i32 : i32 i32 i32
165 waveMatch hfd8wil< - : 4i32 : o
166 waveMultiPrefixOp hfd8wil< - : o : o i32 i32 i32 i32 i8 i8
167 waveMultiPrefixBitCount v - : i32 : i1 i32 i32 i32 i32
168 setMeshOutputCounts v - : v : i32 i32
169 emitIndices v - : v : i32 i32 i32 i32
170 getMeshPayload u ro : o :
171 storeVertexOutput hfwi - : v : i32 i32 i8 o i32
172 storePrimitiveOutput hfwi - : v : i32 i32 i8 o i32
173 dispatchMesh u - : v : i32 i32 i32 o
174 writeSamplerFeedback v - : v : res res res f32*5
175 writeSamplerFeedbackBias v - : v : res res res f32*6
176 writeSamplerFeedbackLevel v - : v : res res res f32*5
177 writeSamplerFeedbackGrad v - : v : res res res f32*11
178 allocateRayQuery v - : i32 : i32
179 rayQuery_TraceRayInline v - : v : i32 res i32 i32 f32*8
180 rayQuery_Proceed 1 - : i1 : i32
181 rayQuery_Abort v - : v : i32
182 rayQuery_CommitNonOpaqueTriangleHit v - : v : i32
183 rayQuery_CommitProceduralPrimitiveHit v - : v : i32 f32
184 rayQuery_StateScalar i ro : i32 : i32
185 rayQuery_StateScalar i ro : i32 : i32
186 rayQuery_StateMatrix f ro : f32 : i32 i32 i8
187 rayQuery_StateMatrix f ro : f32 : i32 i32 i8
188 rayQuery_StateMatrix f ro : f32 : i32 i32 i8
189 rayQuery_StateMatrix f ro : f32 : i32 i32 i8
190 rayQuery_StateScalar 1 ro : i1 : i32
191 rayQuery_StateScalar 1 ro : i1 : i32
192 rayQuery_StateScalar 1 ro : i1 : i32
193 rayQuery_StateVector f ro : f32 : i32 i8
194 rayQuery_StateVector f ro : f32 : i32 i8
195 rayQuery_StateScalar i ro : i32 : i32
196 rayQuery_StateVector f ro : f32 : i32 i8
197 rayQuery_StateVector f ro : f32 : i32 i8
198 rayQuery_StateScalar f ro : f32 : i32
199 rayQuery_StateScalar f ro : f32 : i32
200 rayQuery_StateScalar f ro : f32 : i32
201 rayQuery_StateScalar i ro : i32 : i32
202 rayQuery_StateScalar i ro : i32 : i32
203 rayQuery_StateScalar i ro : i32 : i32
204 rayQuery_StateScalar i ro : i32 : i32
205 rayQuery_StateVector f ro : f32 : i32 i8
206 rayQuery_StateVector f ro : f32 : i32 i8
207 rayQuery_StateScalar i ro : i32 : i32
208 rayQuery_StateScalar i ro : i32 : i32
209 rayQuery_StateScalar i ro : i32 : i32
210 rayQuery_StateScalar i ro : i32 : i32
211 rayQuery_StateVector f ro : f32 : i32 i8
212 rayQuery_StateVector f ro : f32 : i32 i8
213 geometryIndex i rn : i32 :
214 rayQuery_StateScalar i ro : i32 : i32
215 rayQuery_StateScalar i ro : i32 : i32
216 annotateHandle v rn : res : res prop
217 createHandleFromBinding v rn : res : bind i32 i1
218 createHandleFromHeap v rn : res : i32 i1 i1
219 unpack4x8 iw rn : v4o : i8 i32
220 pack4x8 iw rn : i32 : i8 o o o o
221 isHelperLane 1 ro : i1 :
222 quadVote 1 - : i1 : i1 i8
223 textureGatherRaw wil ro : rrt : res res f32*4 i32 i32
224 sampleCmpLevel hf ro : rrt : res res f32*4 i32*3 f32 f32
225 textureStoreSample hfwi - : v : res i32 i32 i32 o o o o i8 i32
226 reserved v -
227 reserved v -
228 reserved v -
229 reserved v -
230 reserved v -
231 reserved v -
232 reserved v -
233 reserved v -
234 reserved v -
235 reserved v -
236 reserved v -
237 reserved v -
238 allocateNodeOutputRecords v -
239 getNodeRecordPtr u rn
240 incrementOutputCount v -
241 outputComplete v -
242 getInputRecordCount v ro
243 finishedCrossGroupSharing v -
244 barrierByMemoryType v nd
245 barrierByMemoryHandle v nd
246 barrierByNodeRecordHandle v nd
247 createNodeOutputHandle v rn
248 indexNodeHandle v rn
249 annotateNodeHandle v rn
250 createNodeInputRecordHandle v rn
251 annotateNodeRecordHandle v rn
252 nodeOutputIsValid v ro
253 getRemainingRecursionLevels v ro
254 sampleCmpGrad hf ro
255 sampleCmpBias hf ro
256 startVertexLocation i rn
257 startInstanceLocation i rn
258 allocateRayQuery2 v -
259 reserved v -
260 reserved v -
261 reserved v -
262 hitObject_TraceRay u -
263 hitObject_FromRayQuery v ro
264 hitObject_FromRayQueryWithAttrs u ro
265 hitObject_MakeMiss v rn
266 hitObject_MakeNop v rn
267 hitObject_Invoke u -
268 maybeReorderThread v -
269 hitObject_StateScalar 1 rn
270 hitObject_StateScalar 1 rn
271 hitObject_StateScalar 1 rn
272 hitObject_StateScalar i rn
273 hitObject_StateScalar f rn
274 hitObject_StateScalar f rn
275 hitObject_StateVector f rn
276 hitObject_StateVector f rn
277 hitObject_StateVector f rn
278 hitObject_StateVector f rn
279 hitObject_StateMatrix f rn
280 hitObject_StateMatrix f rn
281 hitObject_StateScalar i rn
282 hitObject_StateScalar i rn
283 hitObject_StateScalar i rn
284 hitObject_StateScalar i rn
285 hitObject_StateScalar i rn
286 hitObject_StateScalar i rn
287 hitObject_SetShaderTableIndex v rn
288 hitObject_LoadLocalRootTableConstant v ro
289 hitObject_Attributes u amo
290 reserved v -
291 reserved v -
292 reserved v -
293 reserved v -
294 reserved v -
295 reserved v -
296 reserved v -
297 reserved v -
298 reserved v -
299 reserved v -
300 reserved v -
301 reserved v -
302 reserved v -
303 rawBufferVectorLoad hfwidl< ro
304 rawBufferVectorStore hfwidl< -
305 reserved v -
306 reserved v -
307 reserved v -
308 reserved v -
309 vectorReduce 18wil< rn
310 vectorReduce 18wil< rn
311 dot hf< rn
"""

ATTR = {
    "rn": "ReadNone",
    "ro": "ReadOnly",
    "-": "None",
    "nd": "NoDuplicate",
    "nr": "NoReturn",
    "amo": "ArgMemOnly",
}


def parse_rst(path):
    """Returns [(table, id, name, description)] from DXIL.rst's opcode tables."""
    ops = []
    table = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"Opcode Table (\w+), id=(\d+)", lines[i])
        if m:
            table = m.group(1)
            # Skip to the header rule, the header, the rule under it.
            i += 1
            while i < len(lines) and not lines[i].startswith("="):
                i += 1
            i += 3
            while i < len(lines) and not lines[i].startswith("="):
                row = lines[i].split(None, 2)
                if len(row) >= 2 and row[0].isdigit():
                    name = row[1].rstrip("_")
                    desc = row[2].strip() if len(row) > 2 else ""
                    ops.append((table, int(row[0]), name, desc))
                i += 1
        i += 1
    return ops


def parse_hct():
    out = {}
    for line in HCT.strip().splitlines():
        head, *sig = [s.strip() for s in line.split(":")]
        parts = head.split()
        opid, cls, ol, attr = int(parts[0]), parts[1], parts[2], parts[3]
        signature = None
        if sig:
            ret = sig[0]
            params = []
            for p in sig[1].split():
                if "*" in p:
                    t, n = p.split("*")
                    params += [t] * int(n)
                else:
                    params.append(p)
            signature = (ret, params)
        out[opid] = (cls, ol, ATTR[attr], signature)
    return out


def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_generated(path):
    """Returns the rows parse_rst would give, read back from a table this script made.

    The rows are the part of the output that comes from DXIL.rst; everything else is
    made here, so regenerating from them checks that the table is this script's output
    where DXIL.rst is not at hand.
    """
    row = re.compile(
        r'DxOpInfo \{ op: DxOp::\w+, opcode: (\d+), name: "((?:[^"\\]|\\.)*)", '
        r'description: "((?:[^"\\]|\\.)*)",'
    )
    ops = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = row.search(line)
            if m:
                opid = int(m.group(1))
                table = "ExperimentalOps" if opid >= EXPERIMENTAL_BASE else "CoreOps"
                name, desc = (re.sub(r"\\(.)", r"\1", g) for g in m.group(2, 3))
                ops.append((table, opid, name, desc))
    if not ops:
        sys.exit(f"{path} holds no operation rows")
    return ops


EXPERIMENTAL_BASE = 0x8000_0000

USAGE = """usage: gen-dxop-table.py DXIL.rst > src/dxil/dxop_table.rs
       gen-dxop-table.py --rows-from src/dxil/dxop_table.rs
           (the same output, DXIL.rst's rows read back from a table made earlier)"""


def main():
    args = sys.argv[1:]
    if len(args) == 1 and not args[0].startswith("-"):
        rst = parse_rst(args[0])
    elif len(args) == 2 and args[0] == "--rows-from":
        rst = parse_generated(args[1])
    else:
        sys.exit(USAGE)
    hct = parse_hct()
    core = [o for o in rst if o[0] == "CoreOps"]
    exp = [o for o in rst if o[0] != "CoreOps"]
    for n, o in enumerate(core):
        if o[1] != n:
            sys.exit(f"core opcode table is not dense at {o}")
    for n, o in enumerate(exp):
        if o[1] != EXPERIMENTAL_BASE + n:
            sys.exit(f"experimental opcode table is not dense at {o}")
    names = [o[2] for o in core + exp]
    for n in names:
        if not re.fullmatch(r"[A-Z][A-Za-z0-9_]*", n):
            sys.exit(f"operation name {n!r} is not a Rust identifier")
    if len(set(names)) != len(names):
        sys.exit("operation names are not unique")

    # (opid, name, description, properties or None), core then experimental.
    ops = []
    for o in core:
        info = hct.get(o[1])
        if info is not None and info[0] == "reserved" and not o[2].startswith("Reserved"):
            info = None
        ops.append((o[1], o[2], o[3], info))
    n_core = len(ops)
    for o in exp:
        ops.append((o[1], o[2], o[3], None))

    print("// generated by tools/gen-dxop-table.py from DXIL.rst; do not edit.")
    print("//! The `dx.op` operations by name ([`DxOp`]) and their table: opcode, name,")
    print("//! description (DXIL.rst), operation class, overloads, function attribute and")
    print("//! parameter types (DirectXShaderCompiler hctdb.py, as transcribed in")
    print("//! tools/gen-dxop-table.py).")
    print()
    print("use super::dxop::{DxOpInfo, OpAttr};")
    print()
    print("/// A `dx.op` operation, named as DXIL.rst names it; the discriminant is its opcode.")
    print("///")
    print("/// [`DxOp::from_code`] is the checked conversion from an opcode, [`DxOp::name`] the")
    print("/// name a listing prints.")
    print("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]")
    print("#[repr(u32)]")
    print("#[allow(non_camel_case_types)] // DXIL.rst's names, `RayQuery_Proceed` among them")
    print("pub enum DxOp {")
    for opid, name, _, info in ops:
        code = f"0x{opid:08x}" if opid >= EXPERIMENTAL_BASE else str(opid)
        if info is not None and info[0] != "reserved":
            print(f"    /// Opcode {code}, called through `dx.op.{info[0]}`.")
        else:
            print(f"    /// Opcode {code}.")
        print(f"    {name} = {opid},")
    print("}")
    print()
    print("impl DxOp {")
    print("    /// The operation's name, as DXIL.rst and the listings spell it.")
    print("    pub const fn name(self) -> &'static str {")
    print("        match self {")
    for _, name, _, _ in ops:
        print(f"            DxOp::{name} => {rust_str(name)},")
    print("        }")
    print("    }")
    print("}")
    print()

    def row(opid, name, desc, info):
        if info is None:
            cls, ol, attr, sig = "None", '""', "OpAttr::Unknown", "None"
        else:
            c, ol_s, attr_s, s = info
            cls = f"Some({rust_str(c)})"
            ol = rust_str(ol_s)
            attr = f"OpAttr::{attr_s}"
            if s is None:
                sig = "None"
            else:
                sig = "Some((" + rust_str(s[0]) + ", &[" + ", ".join(rust_str(p) for p in s[1]) + "]))"
        return (
            f"    DxOpInfo {{ op: DxOp::{name}, opcode: {opid}, name: {rust_str(name)}, "
            f"description: {rust_str(desc)}, "
            f"class: {cls}, overloads: {ol}, attr: {attr}, signature: {sig} }},"
        )

    print(f"/// Core operations, indexed by opcode (0..={n_core - 1}).")
    print("pub static CORE_OPS: &[DxOpInfo] = &[")
    for o in ops[:n_core]:
        print(row(*o))
    print("];")
    print()
    print("/// Experimental operations (opcodes from 0x8000_0000), in order.")
    print("pub static EXPERIMENTAL_OPS: &[DxOpInfo] = &[")
    for o in ops[n_core:]:
        print(row(*o))
    print("];")


if __name__ == "__main__":
    main()
