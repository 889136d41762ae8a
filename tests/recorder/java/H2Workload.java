// Drives the H2 database (libh2-java) through JDBC: an in-memory database, a table of orders
// with an index, batched inserts, queries with joins, grouping and ordering, updates, deletes.
// H2 is a real program no one here wrote; this driver is only its workload.
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

public class H2Workload {
    public static void main(String[] args) throws Exception {
        int rows = Integer.parseInt(args[0]);
        long checksum = 0;
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:memcity;DB_CLOSE_DELAY=-1", "sa", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE customer(id INT PRIMARY KEY, name VARCHAR(64), city VARCHAR(32))");
                s.execute("CREATE TABLE orders(id INT PRIMARY KEY, customer INT, amount DECIMAL(12,2), note VARCHAR(200))");
                s.execute("CREATE INDEX orders_customer ON orders(customer)");
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO customer VALUES(?, ?, ?)")) {
                for (int i = 0; i < rows / 10; i++) {
                    p.setInt(1, i);
                    p.setString(2, "customer-" + i);
                    p.setString(3, "city-" + (i % 37));
                    p.addBatch();
                }
                p.executeBatch();
            }
            Zoo.checkpoint("customers");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO orders VALUES(?, ?, ?, ?)")) {
                for (int i = 0; i < rows; i++) {
                    p.setInt(1, i);
                    p.setInt(2, i % (rows / 10));
                    p.setBigDecimal(3, java.math.BigDecimal.valueOf(i % 1000, 2));
                    p.setString(4, "order " + i + " for customer " + (i % (rows / 10)));
                    p.addBatch();
                    if (i % 1000 == 999) p.executeBatch();
                }
                p.executeBatch();
            }
            Zoo.checkpoint("orders");
            try (Statement s = c.createStatement()) {
                for (int q = 0; q < 20; q++) {
                    try (ResultSet r = s.executeQuery("SELECT c.city, COUNT(*), SUM(o.amount) FROM orders o JOIN customer c "
                            + "ON o.customer = c.id WHERE o.id % 20 = " + q + " GROUP BY c.city ORDER BY 3 DESC")) {
                        while (r.next()) checksum += r.getLong(2);
                    }
                }
                Zoo.checkpoint("queries");
                s.executeUpdate("UPDATE orders SET note = CONCAT(note, ' (paid)') WHERE id % 3 = 0");
                s.executeUpdate("DELETE FROM orders WHERE id % 7 = 0");
                try (ResultSet r = s.executeQuery("SELECT COUNT(*) FROM orders")) {
                    r.next();
                    checksum += r.getLong(1);
                }
            }
        }
        System.out.println("checksum " + checksum);
    }
}
