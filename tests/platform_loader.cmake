add_executable(platform_loader_test platform_loader_test.cpp)
target_link_libraries(platform_loader_test PRIVATE xover::sim GTest::gmock GTest::gtest_main)
target_compile_definitions(platform_loader_test PRIVATE XOVER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(platform_loader_test)
