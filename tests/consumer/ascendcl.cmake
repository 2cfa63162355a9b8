# Programs written for GE built against ge's install as GE's are (docs/acl.md "Building
# GE programs against ge"), run with cmake -P by the ctest consumer.ascendcl:
#   1. gec --singleop writes tests/acl/singleop_ops.json's op models (the installed gec);
#   2. C programs of tests/acl built with a plain compiler line,
#        cc prog.c -I$PREFIX/runtime/include -L$PREFIX/runtime/lib64/stub -lascendcl ...,
#      and with pkg-config's flags for ascendcl;
#   3. a sample-style CMakeLists (acl_sample/) configured with DDK_PATH and NPU_HOST_LIB;
# each program run with LD_LIBRARY_PATH=$PREFIX/runtime/lib64, as GE's run scripts do.
# In: PREFIX (ge installed there), WORK (a scratch folder), ACL_DIR (tests/acl),
# SAMPLE_DIR (acl_sample/), CC, GENERATOR; C_FLAGS and LINK_FLAGS, the build's own (a
# sanitizer build's library needs its programs built with the sanitizer too); optionally
# CXX and CXX_FLAGS (the same program built as the C++ samples are); MAKE_MODELS, the
# program that writes the model files mdl_test.c loads.
foreach(v PREFIX WORK ACL_DIR SAMPLE_DIR CC GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "ascendcl.cmake: -D${v}=... is required")
  endif()
endforeach()
separate_arguments(cc_flags UNIX_COMMAND "${C_FLAGS} ${LINK_FLAGS}")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ascendcl: ${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "ascendcl: ${what}: ok")
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

# A program's run, with the library found as GE's run scripts find it.
function(run_program what exe)
  run("${what}" ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${PREFIX}/runtime/lib64" ${exe} ${ARGN})
  if(NOT run_out MATCHES ", 0 failed")
    message(FATAL_ERROR "ascendcl: ${what}: no ', 0 failed' in:\n${run_out}")
  endif()
endfunction()

# 1. the op models.
run("gec --singleop" ${PREFIX}/bin/gec --singleop ${ACL_DIR}/singleop_ops.json --output ${WORK}/op_models)

# 2. a plain compiler line against the stubs, then pkg-config's flags.
set(stub -I${PREFIX}/runtime/include -I${ACL_DIR} -L${PREFIX}/runtime/lib64/stub)
foreach(program singleop_model base attr op_exec)
  run("cc ${program}_test.c -lascendcl" ${CC} ${cc_flags} -std=c11 -o ${WORK}/plain_${program} ${ACL_DIR}/${program}_test.c
    ${stub} -lascendcl -lacl_op_compiler -lm)
endforeach()
run_program("plain singleop_model" ${WORK}/plain_singleop_model op_models)
foreach(program base attr op_exec)
  run_program("plain ${program}" ${WORK}/plain_${program})
endforeach()
# Offline models (gears, hybrid mode's dims between gears, ranges) through aclmdl*, on
# model files ge writes (MAKE_MODELS: tests/acl/make_models.cpp, built with ge).
if(DEFINED MAKE_MODELS AND EXISTS "${MAKE_MODELS}")
  run("make the model files" ${MAKE_MODELS} ${WORK}/models)
  run("cc mdl_test.c -lascendcl" ${CC} ${cc_flags} -std=c11 -o ${WORK}/plain_mdl ${ACL_DIR}/mdl_test.c ${stub} -lascendcl -lm)
  run_program("plain mdl" ${WORK}/plain_mdl ${WORK}/models)
endif()
# The runtime's contexts and events, and the media header with its own library name, as
# AclLite programs link them (-lacl_dvpp).
foreach(program rt_context media)
  run("cc ${program}_test.c -lascendcl -lacl_dvpp" ${CC} ${cc_flags} -std=c11 -o ${WORK}/plain_${program}
    ${ACL_DIR}/${program}_test.c ${stub} -lascendcl -lacl_dvpp -lpthread -lm)
  run_program("plain ${program}" ${WORK}/plain_${program})
endforeach()
# As the C++ samples build (-std=c++11, linking ascendcl and stdc++).
if(DEFINED CXX)
  separate_arguments(cxx_flags UNIX_COMMAND "${CXX_FLAGS} ${LINK_FLAGS}")
  run("c++ -std=c++11 singleop_model_test.c -lascendcl -lstdc++" ${CXX} ${cxx_flags} -std=c++11 -x c++
    ${ACL_DIR}/singleop_model_test.c -x none -o ${WORK}/cxx_singleop_model ${stub} -lascendcl -lstdc++)
  run_program("c++ singleop_model" ${WORK}/cxx_singleop_model op_models)
endif()

# The older toolkits' paths (acllib/include, acllib/lib64/stub) and the compiler stub folder.
run("cc -I acllib/include -L acllib/lib64/stub" ${CC} ${cc_flags} -std=c11 -o ${WORK}/acllib_singleop_model
  ${ACL_DIR}/singleop_model_test.c -I${PREFIX}/acllib/include -I${ACL_DIR} -L${PREFIX}/acllib/lib64/stub
  -L${PREFIX}/compiler/lib64/stub -lascendcl -lacl_op_compiler)
run_program("acllib singleop_model" ${WORK}/acllib_singleop_model op_models)
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env "PKG_CONFIG_PATH=${PREFIX}/lib/pkgconfig:${PREFIX}/lib64/pkgconfig"
    ${PKG_CONFIG} --cflags --libs ascendcl OUTPUT_VARIABLE pc_flags RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0 OR NOT pc_flags MATCHES "-lascendcl")
    message(FATAL_ERROR "ascendcl: pkg-config --cflags --libs ascendcl gave '${pc_flags}' (${rc})")
  endif()
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  run("cc with pkg-config ascendcl" ${CC} ${cc_flags} -std=c11 -o ${WORK}/pc_singleop_model ${ACL_DIR}/singleop_model_test.c
    -I${ACL_DIR} ${pc_flags})
  run_program("pkg-config singleop_model" ${WORK}/pc_singleop_model op_models)
endif()

# 3. the sample's own CMakeLists.
run("sample cmake configure" ${CMAKE_COMMAND} -E env DDK_PATH=${PREFIX} NPU_HOST_LIB=${PREFIX}/runtime/lib64/stub
  ${CMAKE_COMMAND} -S ${SAMPLE_DIR} -B ${WORK}/sample -G ${GENERATOR} -DCMAKE_C_COMPILER=${CC} -DACL_TEST_DIR=${ACL_DIR}
  "-DCMAKE_C_FLAGS=${C_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}")
run("sample build" ${CMAKE_COMMAND} --build ${WORK}/sample)
run_program("sample singleop_model" ${WORK}/sample/singleop_model op_models)
run_program("sample op_exec" ${WORK}/sample/op_exec)
message(STATUS "ascendcl: ok")
