// Small hand-written inputs in the published formats (not copies of the reference data).
#pragma once

namespace servescope::test {

// PPipe block timing: 3 blocks × batch 1..4, and the 2 boundary sizes.
inline constexpr const char* kPpipeTimingV100 = "100,180,260,340\n200,390,580,770\n50,90,130,170\n";
inline constexpr const char* kPpipeTimingV100Half = "150,280,410,540\n300,590,880,1170\n80,150,220,290\n";
inline constexpr const char* kPpipeTimingP4 = "400,790,1180,1570\n900,1790,2680,3570\n210,410,610,810\n";
inline constexpr const char* kPpipeTransSizes = "1048576\n2097152\n";
inline constexpr const char* kPpipeL4Timing =
    R"([{"computeMs": 6.0, "latencyMs": 6.1}, {"computeMs": 8.0, "latencyMs": 8.1}])";

inline constexpr const char* kNexusProfile =
    "caffe:toynet:1\nTITAN_X_(Pascal)\nForward latency\nbatch,latency(us),std(us),memory(B)\n"
    "1,1000.5,10,100\n2,1800,12,200\n3,1750,20,300\n4,3000,15,400\n"
    "Preprocess latency\nmean(us),std(us)\n300.25,10\nPostprocess latency\nmean(us),std(us)\n1.5,0.5\n";

inline constexpr const char* kAlphaBeta =
    "model,gpu,alpha_ms,beta_ms,slo_ms\nResNet50,1080Ti,1.053,5.072,25\nResNet50,A100,0.268,5.172,25\n"
    "InceptionResNetV2,GTX1080Ti,5.090,18.368,70\n";

inline constexpr const char* kGletUtil =
    "bench,batch,avg_duration(ms),SM_util(%),l2_util(%),mem_util(%),achieved occupancy,theoretical occupancy\n"
    "resnet50,8,0.02,60.5,20.25,50,30,60,\nresnet50,1,0.01,30,10,25,20,60,\nvgg16,1,0.01,35,12,28,20,60,\n";

inline constexpr const char* kGletInterference =
    "l2_util_m1,l2_util_m2,dram_util_m1,dram_util_m2,constant\n0.11,0.71,0.35,0.088,0.895\n";

inline constexpr const char* kPartitionLatency =
    "vgg16,1,20,throughput,220.5,latency,0.0045352,1\nvgg16,2,20,throughput,300,latency,0.0066,1\n"
    "vgg16,1,100,throughput,600,latency,0.0016,1\nvgg16,2,100,throughput,700,latency,0.0015,1\n"
    "resnet50,1,40,throughput,400,latency,0.0025,1\n";

}  // namespace servescope::test
