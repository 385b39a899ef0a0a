# Cross build for linux-aarch64 (Debian's gcc-aarch64-linux-gnu; Check from the arm64 multiarch
# packages). Used by scripts/aarch64-check.sh and `mvn -Paarch64 package`; tests run under
# qemu-user (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
# xxhash.h is header-only and architecture-neutral: the host's copy serves.
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/usr/aarch64-linux-gnu)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
# JNI: the host JDK's headers are architecture-neutral; no JVM library is linked (the JVM that
# loads the library provides the symbols), so FindJNI's library checks get the host's paths.
if(DEFINED ENV{JAVA_HOME})
  set(JAVA_INCLUDE_PATH $ENV{JAVA_HOME}/include CACHE PATH "")
  set(JAVA_INCLUDE_PATH2 $ENV{JAVA_HOME}/include/linux CACHE PATH "")
  set(JAVA_AWT_INCLUDE_PATH $ENV{JAVA_HOME}/include CACHE PATH "")
  set(JAVA_JVM_LIBRARY $ENV{JAVA_HOME}/lib/server/libjvm.so CACHE FILEPATH "")
  set(JAVA_AWT_LIBRARY $ENV{JAVA_HOME}/lib/server/libjvm.so CACHE FILEPATH "")
endif()
