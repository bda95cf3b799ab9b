# Trainer tests (docs/trainer.md).  test_trainer_process runs build/bin/trainer
# as a child process, so it depends on that target.
gz_add_test(test_replay_buffer SOURCES test_replay_buffer.cc LIBS gz_trainer TIMEOUT 60)
gz_add_test(test_trainer_files SOURCES test_trainer_files.cc LIBS gz_trainer TIMEOUT 120)
gz_add_test(test_trainer_learning SOURCES test_trainer_learning.cc LIBS gz_trainer TIMEOUT 300)
gz_add_test(test_trainer_process SOURCES test_trainer_process.cc LIBS gz_trainer TIMEOUT 300)
add_dependencies(test_trainer_process trainer)
# With the real inference server (when this tree has it).
if(TARGET infer_server)
  gz_add_test(test_trainer_server SOURCES test_trainer_server.cc LIBS gz_trainer TIMEOUT 300)
  add_dependencies(test_trainer_server trainer infer_server)
endif()
