# CUDA (README "GPU execution"): the CUDA executor, `gpu list`, `measure-interference` and
# `profile --device cuda` live in cudaexec/ and the servescope-cuda program. They are built
# wherever nvcc is found: in /usr/local/cuda/bin (where the toolkit installs it, usually not on
# PATH), under $CUDA_PATH, or on PATH. Building them needs no GPU; running them does.
#
# SERVESCOPE_CUDA: AUTO builds them when nvcc is found, ON requires it, OFF never builds them.
# Not under the sanitizers: ASan's shadow memory overlaps the CUDA driver's fixed mappings unless
# every run sets protect_shadow_gap=0, and the kernels cannot be instrumented. The host-side
# arithmetic (engine/gpu/) is built and tested under them like every other layer.
set(SERVESCOPE_CUDA "AUTO" CACHE STRING "Build the CUDA parts: AUTO (where nvcc is found), ON or OFF")
set_property(CACHE SERVESCOPE_CUDA PROPERTY STRINGS AUTO ON OFF)
set(SERVESCOPE_HAVE_CUDA OFF)

if(SERVESCOPE_CUDA STREQUAL "OFF" OR SERVESCOPE_SANITIZE)
  message(STATUS "CUDA: off (SERVESCOPE_CUDA=${SERVESCOPE_CUDA}, sanitizers ${SERVESCOPE_SANITIZE})")
  return()
endif()

if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  find_program(SERVESCOPE_NVCC nvcc HINTS "$ENV{CUDA_PATH}/bin" /usr/local/cuda/bin)
  if(SERVESCOPE_NVCC)
    set(ENV{CUDACXX} "${SERVESCOPE_NVCC}")
  endif()
endif()
# The kernels are small; naming the architectures makes the build independent of the machine's
# GPU (there is usually none where it builds). Turing is CUDA 13's oldest; sm_90 also carries PTX,
# which the driver compiles for newer GPUs.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90" CACHE STRING "CUDA architectures to build for")
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  if(SERVESCOPE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "SERVESCOPE_CUDA=ON but no working nvcc: looked in $CUDA_PATH/bin, /usr/local/cuda/bin and on PATH")
  endif()
  message(STATUS "CUDA: no nvcc in /usr/local/cuda/bin, $CUDA_PATH/bin or on PATH; building without the CUDA parts")
  return()
endif()

enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
if(NOT TARGET CUDA::cublas OR NOT TARGET CUDA::cudart_static)
  message(FATAL_ERROR "CUDA toolkit ${CUDAToolkit_VERSION} at ${CUDAToolkit_BIN_DIR} lacks cuBLAS or the static cudart")
endif()
if(CCACHE_PROGRAM)
  set(CMAKE_CUDA_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
endif()
set(CMAKE_CUDA_STANDARD 17)  # CMake 3.25 knows no C++20 flag for nvcc; the kernels need none
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(SERVESCOPE_HAVE_CUDA ON)
message(STATUS "CUDA ${CUDAToolkit_VERSION} (${CMAKE_CUDA_COMPILER}): building cudaexec and servescope-cuda for ${CMAKE_CUDA_ARCHITECTURES}")
