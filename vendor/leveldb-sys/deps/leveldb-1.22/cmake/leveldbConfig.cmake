include("${CMAKE_CURRENT_LIST_DIR}/leveldbTargets.cmake")
