# The tests that need the simulator: left out of a build without SimGrid
# (XOVER_WITH_SIMGRID=OFF).
include(platform_loader.cmake)

add_executable(proto_info_cli_test proto_info_cli_test.cpp support/run.cpp)
target_include_directories(proto_info_cli_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(proto_info_cli_test PRIVATE GTest::gmock GTest::gtest_main)
target_compile_definitions(proto_info_cli_test PRIVATE XOVER_BINARY="$<TARGET_FILE:xover>"
                                                       XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(proto_info_cli_test xover)
gtest_discover_tests(proto_info_cli_test)

add_executable(sim_exactness_test sim_exactness_test.cpp)
target_include_directories(sim_exactness_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(sim_exactness_test PRIVATE xover::sim GTest::gtest_main)
target_compile_definitions(sim_exactness_test PRIVATE XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(sim_exactness_test)

add_executable(run_cli_test run_cli_test.cpp support/run.cpp)
target_include_directories(run_cli_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(run_cli_test PRIVATE GTest::gmock GTest::gtest_main)
target_compile_definitions(run_cli_test PRIVATE XOVER_BINARY="$<TARGET_FILE:xover>"
                                                XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(run_cli_test xover)
gtest_discover_tests(run_cli_test)

add_executable(matching_test matching_test.cpp matching_load_test.cpp matching_limits_test.cpp support/backend.cpp)
target_include_directories(matching_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(matching_test PRIVATE xover::sim xover::runtime GTest::gtest_main)
target_compile_definitions(matching_test PRIVATE XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(matching_test)

add_executable(sim_transport_test sim_transport_test.cpp)
target_include_directories(sim_transport_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(sim_transport_test PRIVATE xover::sim GTest::gtest_main)
target_compile_definitions(sim_transport_test PRIVATE XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(sim_transport_test)

add_executable(alltoall_sim_test alltoall_sim_test.cpp)
target_include_directories(alltoall_sim_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(alltoall_sim_test PRIVATE xover::sim GTest::gtest_main)
target_compile_definitions(alltoall_sim_test PRIVATE XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(alltoall_sim_test)

add_executable(calib_test calib_fit_test.cpp calib_platform_test.cpp calib_refine_test.cpp calib_rounds_test.cpp
                          calib_segments_test.cpp)
target_include_directories(calib_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(calib_test PRIVATE xover::calib xover::sim GTest::gmock GTest::gtest_main)
target_compile_definitions(calib_test PRIVATE XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(calib_test)

# One test per file in scenarios/, listed when CTest runs (PRE_TEST), so a
# new scenario file is picked up without a rebuild.
add_executable(shipped_scenarios_test shipped_scenarios_test.cpp support/backend.cpp support/run.cpp)
target_include_directories(shipped_scenarios_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(shipped_scenarios_test PRIVATE xover::formats xover::sim xover::runtime xover::tools
                                                     GTest::gtest_main)
target_compile_definitions(shipped_scenarios_test PRIVATE XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(shipped_scenarios_test DISCOVERY_MODE PRE_TEST)

add_executable(sim_sweep_cli_test sim_sweep_cli_test.cpp support/run.cpp)
target_include_directories(sim_sweep_cli_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(sim_sweep_cli_test PRIVATE GTest::gmock GTest::gtest_main)
target_compile_definitions(sim_sweep_cli_test PRIVATE XOVER_BINARY="$<TARGET_FILE:xover>"
                                                      XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(sim_sweep_cli_test xover)
gtest_discover_tests(sim_sweep_cli_test)

add_executable(put_signal_test put_signal_test.cpp support/backend.cpp)
target_include_directories(put_signal_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(put_signal_test PRIVATE xover::sim xover::runtime GTest::gtest_main)
target_compile_definitions(put_signal_test PRIVATE XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(put_signal_test)

add_executable(alltoall_test alltoall_test.cpp support/backend.cpp)
target_include_directories(alltoall_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(alltoall_test PRIVATE xover::sim xover::runtime GTest::gtest_main)
target_compile_definitions(alltoall_test PRIVATE XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(alltoall_test PROPERTIES RUN_SERIAL TRUE)

# xover validate runs the simulator: built with it only.
add_executable(validate_cli_test validate_cli_test.cpp support/run.cpp)
target_include_directories(validate_cli_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(validate_cli_test PRIVATE GTest::gmock GTest::gtest_main)
target_compile_definitions(validate_cli_test PRIVATE XOVER_BINARY="$<TARGET_FILE:xover>"
                                                     XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(validate_cli_test xover)
gtest_discover_tests(validate_cli_test PROPERTIES RUN_SERIAL TRUE)
